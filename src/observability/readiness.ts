import type { Logger } from "pino";
import { withTimeout } from "../util/with-timeout.ts";

/**
 * What the background checks last found. `storeReset` and `noteService` do not make the bot
 * unready: every replica shares them, and taking all out of service would be an outage.
 */
export interface ReadinessReport {
  ok: boolean;
  store: boolean;
  slack: boolean;
  disk: boolean;
  socket?: boolean;
  /** ISO time of the store's last data loss, while recent. */
  storeReset?: string;
  noteService?: boolean;
}

export interface ReadinessTimings {
  storeEveryMs: number;
  /** Between two `auth.test` calls while Slack answers (its answer is trusted this long). */
  slackOkEveryMs: number;
  slackFailedEveryMs: number;
  diskEveryMs: number;
  deadlineMs: number;
}
/** `auth.test` allows hundreds of requests a minute: two a minute, twelve while failing. */
export const DEFAULT_READINESS_TIMINGS: ReadinessTimings = {
  storeEveryMs: 5_000,
  slackOkEveryMs: 30_000,
  slackFailedEveryMs: 5_000,
  diskEveryMs: 10_000,
  deadlineMs: 3_000,
};

export interface ReadinessOptions {
  probeStore: () => Promise<void>;
  /** Resolves when Slack's `auth.test` accepts the bot token (no retries of its own). */
  slackAuthTest: () => Promise<unknown>;
  diskHasRoom: () => Promise<boolean>;
  socketConnected?: () => boolean;
  storeResetAt?: () => number | undefined;
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
  stop(): void;
}

/** Each check runs on its own timer, so a probe is answered at once even while a backend hangs. */
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

interface PeriodicCheckOptions {
  name: string;
  /** Resolves true when the check passes; false or a rejection (its reason logged) when not. */
  run: () => Promise<boolean>;
  every: (passed: boolean) => number;
  deadlineMs: number;
  logger: Logger;
}

/** One background check, tried again on an unref'd timer, each try within a deadline. */
class PeriodicCheck {
  readonly #o: PeriodicCheckOptions;
  #passed: boolean | undefined;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #endedAt = Number.NEGATIVE_INFINITY;
  #stopped = false;

  constructor(options: PeriodicCheckOptions) {
    this.#o = options;
  }

  get passed(): boolean | undefined {
    return this.#passed;
  }

  sinceLastMs(): number {
    return performance.now() - this.#endedAt;
  }

  /** Tries now (a try under way is shared); resolves once it ended, never rejects. */
  runNow(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    if (this.#running !== undefined) return this.#running;
    clearTimeout(this.#timer);
    this.#running = withTimeout(
      this.#o.run(),
      this.#o.deadlineMs,
      `no answer within ${this.#o.deadlineMs} ms`,
    )
      .then(
        (passed) => this.#record(passed, passed ? undefined : "not ready"),
        (error: unknown) => this.#record(false, reasonOf(error)),
      )
      .finally(() => {
        this.#running = undefined;
        this.#endedAt = performance.now();
        if (this.#stopped) return;
        this.#timer = setTimeout(() => void this.runNow(), this.#o.every(this.#passed === true));
        this.#timer.unref();
      });
    return this.#running;
  }

  /** No further tries (one under way ends unrecorded in any timer). */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  #record(passed: boolean, reason: string | undefined): void {
    const changed = this.#passed !== passed;
    this.#passed = passed;
    if (!changed) return;
    const { logger, name } = this.#o;
    if (passed) logger.info({ check: name }, "readiness: check passes");
    else logger.warn({ check: name, reason }, "readiness: check fails");
  }
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message || error.name : String(error);
}
