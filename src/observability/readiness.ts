import type { Logger } from "pino";

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
  /** Stops every check and timer. */
  stop(): void;
}

type CheckName = "store" | "slack" | "disk";

/** One background check: its last result and when it runs next. */
interface Check {
  ok: boolean | undefined;
  reason: string | undefined;
  timer: NodeJS.Timeout | undefined;
  running: Promise<void> | undefined;
  /** When the last try ended (monotonic ms). */
  endedAt: number;
  run: () => Promise<boolean>;
  every: (ok: boolean) => number;
}

/**
 * Readiness from state kept by background checks, so a probe gets its answer at once even
 * while Redis, Slack or the disk hang: each check runs on its own timer (unref'd, cleared by
 * `stop`), each try bounded by a deadline, and logs when its result changes.
 */
export function createReadiness(options: ReadinessOptions): Readiness {
  const timings = { ...DEFAULT_READINESS_TIMINGS, ...options.timings };
  const { logger } = options;
  let stopped = false;
  const check = (run: () => Promise<boolean>, every: (ok: boolean) => number): Check => ({
    ok: undefined,
    reason: undefined,
    timer: undefined,
    running: undefined,
    endedAt: Number.NEGATIVE_INFINITY,
    run,
    every,
  });
  const checks: Record<CheckName, Check> = {
    store: check(
      () => options.probeStore().then(() => true),
      () => timings.storeEveryMs,
    ),
    slack: check(
      () => options.slackAuthTest().then(() => true),
      (ok) => (ok ? timings.slackOkEveryMs : timings.slackFailedEveryMs),
    ),
    disk: check(options.diskHasRoom, () => timings.diskEveryMs),
  };

  const runNow = (name: CheckName): Promise<void> => {
    const c = checks[name];
    if (stopped) return Promise.resolve();
    if (c.running !== undefined) return c.running;
    clearTimeout(c.timer);
    c.running = withDeadline(c.run(), timings.deadlineMs)
      .then(
        (ok) => record(name, ok, ok ? undefined : "not ready"),
        (error: unknown) => record(name, false, reasonOf(error)),
      )
      .finally(() => {
        c.running = undefined;
        c.endedAt = performance.now();
        if (stopped) return;
        c.timer = setTimeout(() => void runNow(name), c.every(c.ok === true));
        c.timer.unref();
      });
    return c.running;
  };

  const record = (name: CheckName, ok: boolean, reason: string | undefined) => {
    const c = checks[name];
    const changed = c.ok !== ok;
    c.ok = ok;
    c.reason = reason;
    if (!changed) return;
    if (ok) logger.info({ check: name }, "readiness: check passes");
    else logger.warn({ check: name, reason }, "readiness: check fails");
  };

  return {
    async start() {
      await Promise.all((Object.keys(checks) as CheckName[]).map(runNow));
    },
    report() {
      const store = checks.store.ok === true;
      const slack = checks.slack.ok === true;
      const disk = checks.disk.ok === true;
      const base: ReadinessReport = { ok: store && slack && disk, store, slack, disk };
      const report =
        options.socketConnected === undefined ? base : withSocket(base, options.socketConnected());
      const resetAt = options.storeResetAt?.();
      return resetAt === undefined
        ? report
        : { ...report, storeReset: new Date(resetAt).toISOString() };
    },
    suspectSlack() {
      // Already failing: checked often anyway. A burst of failed calls asks once.
      const { slack } = checks;
      if (slack.ok === false) return;
      if (performance.now() - slack.endedAt < timings.slackFailedEveryMs) return;
      void runNow("slack");
    },
    stop() {
      stopped = true;
      for (const c of Object.values(checks)) clearTimeout(c.timer);
    },
  };
}

function withSocket(report: ReadinessReport, socket: boolean): ReadinessReport {
  return { ...report, ok: report.ok && socket, socket };
}

/** Settles with `promise`, or rejects once `ms` passed (the check counts as failed). */
function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message || error.name : String(error);
}
