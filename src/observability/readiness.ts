import type { Logger } from "pino";
import { PeriodicCheck } from "./periodic-check.ts";

/**
 * Whether the bot can do its work now, as the background checks last found it: the store
 * takes a write, Slack answers `auth.test`, the temp folder's disk has room and, in Socket
 * Mode, the socket is connected (without it no event, command or click arrives). A false
 * field names the check that failed; `storeReset` says when the store was last found to
 * have lost its data, while that is recent (it does not make the bot unready: the store
 * works again, and every replica taken out at once would be an outage).
 */
export interface ReadinessReport {
  ok: boolean;
  store: boolean;
  slack: boolean;
  disk: boolean;
  /** Socket Mode only. */
  socket?: boolean;
  /** ISO time of the store's last data loss, while recent. */
  storeReset?: string;
  /**
   * Present, false, while the Note Service has not been reached for a while (the calls jobs
   * make tell). It does not make the bot unready: every replica shares the outage, and one taken
   * out of service could no longer take the recordings that wait for the service's return.
   */
  noteService?: boolean;
}

/** How often each check runs, and how long one may take. */
export interface ReadinessTimings {
  /** Between two store write probes. */
  storeEveryMs: number;
  /** Between two `auth.test` calls while Slack answers (its answer is trusted this long). */
  slackOkEveryMs: number;
  /** Between two `auth.test` calls while Slack does not answer. */
  slackFailedEveryMs: number;
  /** Between two looks at the temp folder's free space. */
  diskEveryMs: number;
  /** The longest one check may take; past it, it counts as failed. */
  deadlineMs: number;
}

/**
 * `auth.test` is in Slack's special tier ("This method allows hundreds of requests per
 * minute", https://docs.slack.dev/reference/methods/auth.test): two a minute while fine and
 * twelve while Slack fails are a small part of it, even with a few replicas.
 */
export const DEFAULT_READINESS_TIMINGS: ReadinessTimings = {
  storeEveryMs: 5_000,
  slackOkEveryMs: 30_000,
  slackFailedEveryMs: 5_000,
  diskEveryMs: 10_000,
  deadlineMs: 3_000,
};

/** What the checks look at, and how often. */
export interface ReadinessOptions {
  /** Writes a small value with a short TTL; rejects when the store cannot write. */
  probeStore: () => Promise<void>;
  /** Resolves when Slack's `auth.test` accepts the bot token (no retries of its own). */
  slackAuthTest: () => Promise<unknown>;
  /** Resolves true while the temp folder's disk has room for recordings. */
  diskHasRoom: () => Promise<boolean>;
  /** Socket Mode: whether the socket is connected now (read on every report). */
  socketConnected?: () => boolean;
  /** When the store was last found to have lost its data, while recent. */
  storeResetAt?: () => number | undefined;
  /** Since when the Note Service has not been reached, once that has lasted. */
  noteServiceDownSince?: () => number | undefined;
  logger: Logger;
  timings?: Partial<ReadinessTimings>;
}

/** What `/readyz` reads: the checks' last results, kept up to date in the background. */
export interface Readiness {
  /** Starts the checks; resolves once each has answered (or missed its deadline) once. */
  start(): Promise<void>;
  /** The last results: answers at once, whatever hangs. */
  report(): ReadinessReport;
  /** A Slack call just failed as if Slack were down: ask `auth.test` now, not on schedule. */
  suspectSlack(): void;
  /** Asks `auth.test` now whatever the last answer (Slack just connected or refused the token). */
  checkSlackNow(): Promise<void>;
  /** Stops every check and timer. */
  stop(): void;
}

/**
 * Readiness from state kept by background checks, so a probe gets its answer at once even
 * while Redis, Slack or the disk hang: each check runs on its own timer (unref'd, cleared by
 * `stop`), each try bounded by a deadline, and logs when its result changes.
 */
export function createReadiness(options: ReadinessOptions): Readiness {
  const t = { ...DEFAULT_READINESS_TIMINGS, ...options.timings };
  const check = (name: string, run: () => Promise<unknown>, every: (ok: boolean) => number) =>
    new PeriodicCheck({
      name,
      run: () => run().then((result) => result !== false),
      every,
      deadlineMs: t.deadlineMs,
      logger: options.logger,
    });
  const checks = {
    store: check("store", options.probeStore, () => t.storeEveryMs),
    slack: check("slack", options.slackAuthTest, (ok) =>
      ok ? t.slackOkEveryMs : t.slackFailedEveryMs,
    ),
    disk: check("disk", options.diskHasRoom, () => t.diskEveryMs),
  };
  const all = Object.values(checks);
  return {
    async start() {
      await Promise.all(all.map((c) => c.runNow()));
    },
    report: () => reportOf(checks, options),
    suspectSlack() {
      // Already failing: asked often anyway. A burst of failed calls asks once.
      const { slack } = checks;
      if (slack.passed === false || slack.sinceLastMs() < t.slackFailedEveryMs) return;
      void slack.runNow();
    },
    checkSlackNow: () => checks.slack.runNow(),
    stop() {
      for (const c of all) c.stop();
    },
  };
}

/** The checks' last results, the socket as it is now, and a recent loss of the store's data. */
function reportOf(
  checks: Record<"store" | "slack" | "disk", PeriodicCheck>,
  options: Pick<ReadinessOptions, "socketConnected" | "storeResetAt" | "noteServiceDownSince">,
): ReadinessReport {
  const store = checks.store.passed === true;
  const slack = checks.slack.passed === true;
  const disk = checks.disk.passed === true;
  let report: ReadinessReport = { ok: store && slack && disk, store, slack, disk };
  if (options.socketConnected !== undefined) {
    const socket = options.socketConnected();
    report = { ...report, ok: report.ok && socket, socket };
  }
  if (options.noteServiceDownSince?.() !== undefined) report = { ...report, noteService: false };
  const resetAt = options.storeResetAt?.();
  return resetAt === undefined
    ? report
    : { ...report, storeReset: new Date(resetAt).toISOString() };
}
