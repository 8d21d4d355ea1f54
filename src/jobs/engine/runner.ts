import { setTimeout as delay } from "node:timers/promises";
import type { DueClaim } from "../../store/index.ts";
import { BACKOFFS, backoffDelayMs, retry } from "../../util/backoff.ts";
import { partTimer } from "../../util/part-timer.ts";
import { TempFiles } from "../files/temp-files.ts";
import { isActive, type Job } from "../model/job.ts";
import { jobLeaseKey } from "../persistence/job-repository.ts";
import { type HeldLease, LeaseLost, withLease } from "../persistence/with-lease.ts";
import { DuePump } from "./due-pump.ts";
import { defaultFailurePolicy } from "./failure-policy.ts";
import { PersonDraws } from "./person-draws.ts";
import {
  catchUpPace,
  prepareRunner,
  type RunnerOptions,
  type RunnerSettings,
  spreadOverdue,
} from "./runner-start.ts";
import { defaultStageLimits, RequestWaiting } from "./step-context.ts";
import { StepLoop } from "./step-loop.ts";
import { StepScheduler } from "./step-scheduler.ts";
import { isTransfer } from "./steps.ts";

/**
 * Drives every active job to its end. Replicas claim due jobs under their leases, so one works on
 * a job at a time and any picks up where another stopped.
 */
export class JobRunner {
  readonly #o: RunnerSettings;
  readonly #scheduler: StepScheduler;
  readonly #pump: DuePump;
  /** One attempt per job in this process: its end, and how a newer claim stops it. */
  readonly #attempts = new Map<string, { ended: Promise<void>; supersede: AbortController }>();
  readonly #rerun = new Set<string>();
  readonly #controllers = new Map<string, AbortController>();
  readonly #lastStatusAt = new Map<string, number>();
  readonly #draws: PersonDraws;
  readonly #files: TempFiles;
  readonly #loop: StepLoop;
  #stopped = false;

  constructor(options: RunnerOptions) {
    this.#o = {
      limits: defaultStageLimits,
      failurePolicy: defaultFailurePolicy,
      leaseTtlMs: 60_000,
      queueCheckMs: 1_000,
      claimGapMs: 100,
      restartSpreadMs: 15_000,
      statusThrottleMs: 5_000,
      concurrency: { transfers: 2, calls: 16 },
      now: () => options.store.now(),
      media: undefined,
      ...options,
    };
    this.#files = new TempFiles(this.#o.tempDir);
    this.#draws = new PersonDraws(this.#o);
    this.#loop = new StepLoop({
      ...this.#o,
      files: this.#files,
      lastStatusAt: this.#lastStatusAt,
      controllers: this.#controllers,
      stopped: () => this.#stopped,
      kick: (id) => this.kick(id),
      show: (job) => this.#draws.show(job),
    });
    this.#scheduler = new StepScheduler({ concurrency: this.#o.concurrency });
    const { concurrency } = this.#o;
    this.#pump = new DuePump({
      store: this.#o.store,
      logger: this.#o.logger,
      now: this.#o.now,
      leasePrefix: jobLeaseKey(""),
      leaseTtlMs: this.#o.leaseTtlMs,
      capacity: concurrency.calls + concurrency.transfers,
      checkMs: this.#o.queueCheckMs,
      gapMs: this.#o.claimGapMs,
      drive: (claim) => this.#drive(claim),
    });
  }

  /** Resolves to how many active jobs the store holds. */
  async start(): Promise<number> {
    await this.prepare();
    await this.begin();
    return this.countActive();
  }

  /** What `start` does before any step may run, while the process may still wait for Slack. */
  async prepare(): Promise<void> {
    await prepareRunner(this.#o, this.#files);
  }

  /** The spread belongs right before the first claim: its window starts now. */
  async begin(): Promise<void> {
    const timer = partTimer();
    const [spread, active] = await Promise.all([
      spreadOverdue(this.#o),
      this.countActive().catch(() => 0),
    ]);
    timer.lap("spread");
    const pace = catchUpPace(this.#o, spread, active);
    if (pace !== undefined) this.#pump.pace(pace.perSecond, pace.until, pace.atLatest);
    this.#pump.start();
    this.#o.logger.info({ ms: timer.laps }, "runner claiming");
  }

  async countActive(): Promise<number> {
    const counts = await this.#o.repo.countActiveByStage();
    return Object.values(counts).reduce((sum, n) => sum + n, 0);
  }

  /** Makes the job due now; tried again until the store takes it, as a person's command waits on it. */
  kick(id: string): void {
    const schedule = async () => {
      // Scheduled while it runs here, a claim would find the lease held and hide the job.
      if (this.#attempts.has(id)) return void this.#rerun.add(id);
      await this.#o.store.schedule(id, this.#o.now());
      this.#pump.wake(true);
    };
    const again = (error: unknown, failures: number) => {
      if (this.#stopped) return undefined;
      const delayMs = backoffDelayMs(BACKOFFS.giveBack, failures);
      this.#o.logger.warn({ err: error, jobId: id, delayMs }, "kick failed; trying again");
      return delayMs;
    };
    if (this.#stopped) return;
    retry(schedule, again, (ms) => delay(ms, undefined, { ref: false })).catch(() => undefined);
  }

  /** A step driving the job here gives it up at once; the runner applies the requests first. */
  abort(id: string): void {
    this.#controllers.get(id)?.abort(new RequestWaiting());
  }

  async discard(id: string): Promise<void> {
    this.abort(id);
    this.#lastStatusAt.delete(id);
    await this.#files.removeAllOf(id);
  }

  /**
   * A job changed outside a step: drawn at once, as the
   * person waits; an ended one loses its temp files.
   */
  settle(job: Job): void {
    this.#draws.show(job);
    if (isActive(job)) return;
    const logger = this.#o.logger.child({ jobId: job.id });
    this.#scheduler
      .enqueue(async () => {
        if ("resume" in job) await this.#files.removeNamedBy(job.resume);
        else if (job.stage !== "done") await this.#files.removeAllOf(job.id);
      })
      .catch((error: unknown) => logger.warn({ err: error }, "could not settle the job"));
  }

  /** Resolves once nothing runs, waits or is due here (tests wait for this instead of sleeping). */
  async settled(): Promise<void> {
    for (;;) {
      await this.#scheduler.idle();
      await this.#draws.idle();
      if (this.#attempts.size === 0 && this.#draws.size === 0 && this.#pump.quiet(this.#o.now())) {
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  }

  stats() {
    const { queued } = this.#scheduler.stats();
    return { scheduled: this.#pump.driving, queued, running: this.#attempts.size - queued };
  }

  /** Running steps reach a checkpoint or are aborted when `timeoutMs` runs out. */
  async stop(timeoutMs = 10_000): Promise<void> {
    this.#stopped = true;
    this.#pump.stop();
    if ((await this.#scheduler.stop(timeoutMs)) === "timeout") {
      for (const controller of this.#controllers.values()) controller.abort(new Error("shutdown"));
      await this.#scheduler.idle();
    }
    await this.#pump.drained();
  }

  /**
   * A claim for a job whose attempt still runs here means this process stalled past its lease.
   * The old attempt is stopped first: beside a second one, a submission or upload would be made
   * twice.
   */
  #drive(claim: DueClaim): Promise<void> {
    const id = claim.jobId;
    const stale = this.#attempts.get(id);
    if (stale !== undefined) {
      this.#o.logger.warn(
        { jobId: id },
        "job claimed again while an attempt runs here; it stops first",
      );
      stale.supersede.abort(new LeaseLost(jobLeaseKey(id)));
    }
    const supersede = new AbortController();
    const attempt = this.#attempt(claim, supersede.signal, stale?.ended);
    const entry = { ended: attempt.then(noop, noop), supersede };
    this.#attempts.set(id, entry);
    return attempt.finally(() => {
      if (this.#attempts.get(id) !== entry) return;
      this.#attempts.delete(id);
      if (this.#rerun.delete(id)) this.kick(id);
    });
  }

  async #attempt(
    { jobId: id, token }: DueClaim,
    superseded: AbortSignal,
    stale: Promise<void> | undefined,
  ): Promise<void> {
    const { store, leaseTtlMs, repo } = this.#o;
    let giveBackAt: number | undefined;
    // A lease the store did not release is given back by the pump once the store answers.
    const options = { ttlMs: leaseTtlMs, keepAlive: true, token, throwIfNotReleased: true };
    await withLease(store, jobLeaseKey(id), options, async (held) => {
      // The lease is kept alive while a stale attempt unwinds.
      await stale;
      const lease: HeldLease = {
        signal: AbortSignal.any([held.signal, superseded]),
        renew: () => (superseded.aborted ? Promise.reject(superseded.reason) : held.renew()),
      };
      try {
        const job = await repo.get(id);
        const transfer = job !== undefined && isActive(job) && isTransfer(job);
        const ran = await this.#scheduler.run(transfer, () => this.#loop.run(id, lease, job));
        // Stopped: due at once for the next start, not a lease later.
        const left =
          ran === "dropped" ? job : this.#stopped ? await repo.get(id).catch(() => job) : undefined;
        if (left !== undefined && isActive(left) && !superseded.aborted) giveBackAt = left.wakeAt;
      } finally {
        this.#controllers.delete(id);
      }
    });
    // After the release: a claim that found the lease still held would hide it again.
    if (giveBackAt !== undefined) await store.schedule(id, giveBackAt).catch(() => undefined);
  }
}

const noop = () => undefined;
