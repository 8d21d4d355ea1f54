import { chmod, mkdir } from "node:fs/promises";
import type { Logger } from "pino";
import type { StageObserver } from "./apply-event.ts";
import { defaultFailurePolicy, type FailurePolicyOptions } from "./failure-policy.ts";
import { type ActiveJob, isActive, type Job } from "./job.ts";
import { jobLeaseKey } from "./job-repository.ts";
import { isTransfer, runStep } from "./stages/index.ts";
import { defaultStageLimits, type JobPorts, type StageLimits, type StepContext } from "./step.ts";
import { createStepContext } from "./step-context.ts";
import { afterFailedStep, CanceledDuringStep, cancelNow } from "./step-failure.ts";
import { StepScheduler } from "./step-scheduler.ts";
import { TempFiles } from "./temp-files.ts";
import { LeaseLost, withLease } from "./with-lease.ts";

export interface RunnerOptions extends JobPorts {
  /** Where recordings and DOCX files wait between steps; survives a restart. */
  tempDir: string;
  limits?: StageLimits;
  failurePolicy?: FailurePolicyOptions;
  /** How long one replica may drive a job without renewing its lease. */
  leaseTtlMs?: number;
  /** How often the active index is read again, to pick up jobs of other replicas. */
  sweepIntervalMs?: number;
  /** The shortest gap between two progress edits of one status message. */
  statusThrottleMs?: number;
  /** Steps run at once: heavy transfers, and everything else. */
  concurrency?: { transfers: number; calls: number };
  now?: () => number;
  /** Told of every stage change a step makes (metrics). */
  onStageChange?: StageObserver;
}

export type { StageObserver } from "./apply-event.ts";

/**
 * Drives every active job to its end. Each step runs under the job's lease, so exactly one
 * replica works on a job at a time; the time of the next step is stored in the job itself
 * (`wakeAt`), so a restarted or other replica picks up exactly where the last one stopped.
 */
export class JobRunner {
  readonly #o: Required<Omit<RunnerOptions, "limits" | "failurePolicy" | "onStageChange">> & {
    onStageChange: StageObserver | undefined;
    limits: StageLimits;
    failurePolicy: FailurePolicyOptions;
  };
  readonly #scheduler: StepScheduler;
  readonly #running = new Set<string>();
  readonly #rerun = new Set<string>();
  readonly #controllers = new Map<string, AbortController>();
  readonly #lastStatusAt = new Map<string, number>();
  readonly #files: TempFiles;
  #sweeper: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(options: RunnerOptions) {
    this.#o = {
      limits: defaultStageLimits,
      failurePolicy: defaultFailurePolicy,
      leaseTtlMs: 60_000,
      sweepIntervalMs: 30_000,
      statusThrottleMs: 5_000,
      concurrency: { transfers: 2, calls: 16 },
      now: Date.now,
      onStageChange: undefined,
      ...options,
    };
    this.#files = new TempFiles(this.#o.tempDir);
    this.#scheduler = new StepScheduler({
      now: this.#o.now,
      concurrency: this.#o.concurrency,
      logger: this.#o.logger,
      run: (id) => this.#run(id),
    });
  }

  /** Schedules every active job (overdue ones at once) and starts the periodic sweep. */
  async start(): Promise<number> {
    // Recordings and DOCX files wait here: private to the app's user (0700).
    await mkdir(this.#o.tempDir, { recursive: true, mode: 0o700 });
    await chmod(this.#o.tempDir, 0o700);
    // Orphans are judged before any step runs, against the records as they were at start.
    const active = await this.#loadActive();
    await this.#removeOrphanFiles(active.map(([, job]) => job));
    const count = await this.#scheduleLoaded(active);
    this.#sweeper = setInterval(() => {
      this.sweep().catch((error: unknown) => this.#o.logger.error({ err: error }, "sweep failed"));
    }, this.#o.sweepIntervalMs);
    this.#sweeper.unref();
    return count;
  }

  /** Reads the active index and schedules the jobs this process has no timer for. */
  async sweep(): Promise<number> {
    return this.#scheduleLoaded(await this.#loadActive());
  }

  /**
   * Reads every active job the process has no timer for, all at once: read one by one,
   * each read queued behind the overdue steps already started (1,000 jobs: 1.9 s → 0.1 s).
   */
  async #loadActive(): Promise<[string, Job | undefined][]> {
    const ids = (await this.#o.repo.listActiveIds()).filter(
      (id) => !this.#scheduler.has(id) && !this.#running.has(id),
    );
    return Promise.all(
      ids.map(async (id) => [id, await this.#o.repo.get(id)] as [string, Job | undefined]),
    );
  }

  async #scheduleLoaded(loaded: [string, Job | undefined][]): Promise<number> {
    let scheduled = 0;
    for (const [id, job] of loaded) {
      if (job === undefined || !isActive(job)) {
        await this.#o.repo.forgetIfInactive(id);
        continue;
      }
      if (job.wakeAt !== undefined) {
        this.#schedule(job.id, job.wakeAt, job);
        scheduled++;
      }
    }
    return scheduled;
  }

  /** Runs the job's next step as soon as possible (a new job, names given, a retry…). */
  kick(id: string): void {
    this.#schedule(id, this.#o.now());
  }

  /** Stops a step under way in this process (cancel); the job record says the rest. */
  abort(id: string): void {
    this.#controllers.get(id)?.abort(new CanceledDuringStep());
    this.#scheduler.clear(id);
  }

  /** Forgets a job whose record was deleted: stops it here and removes its temp files. */
  async discard(id: string): Promise<void> {
    this.abort(id);
    this.#lastStatusAt.delete(id);
    await this.#files.removeAllOf(id);
  }

  /**
   * Tidies up after a job that ended outside a step (canceled by a person): its temp files
   * go and its status message says how it ended.
   */
  settle(job: Job): void {
    this.#scheduler.clear(job.id);
    const logger = this.#o.logger.child({ jobId: job.id });
    this.#scheduler
      .enqueue(async () => {
        if ("resume" in job) await this.#files.removeNamedBy(job.resume);
        if (job.stage === "canceled") await this.#files.removeAllOf(job.id);
        await this.#o.gateway.showStatus(job);
      })
      .catch((error: unknown) => logger.warn({ err: error }, "could not settle the job"));
  }

  /**
   * Resolves once no step runs or waits here and no timer is due: what this process does
   * next, it does on a later timer or a request. (Tests wait for this instead of sleeping.)
   */
  async settled(): Promise<void> {
    for (;;) {
      await this.#scheduler.idle();
      if (this.#running.size === 0 && !this.#scheduler.hasDue(this.#o.now())) return;
      // A timer due now fires at the next turn of the event loop.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Jobs with a timer or a step under way here; queue sizes (metrics, benchmarks). */
  stats() {
    return { ...this.#scheduler.stats(), running: this.#running.size };
  }

  /**
   * Stops taking work: no new step starts, running steps finish their current stage work
   * (each commit is a checkpoint) or are aborted when `timeoutMs` runs out.
   */
  async stop(timeoutMs = 10_000): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#sweeper);
    if ((await this.#scheduler.stop(timeoutMs)) === "timeout") {
      for (const controller of this.#controllers.values()) controller.abort(new Error("shutdown"));
      await this.#scheduler.idle();
    }
  }

  #schedule(id: string, at: number, known?: ActiveJob): void {
    if (this.#stopped) return;
    this.#scheduler.schedule(id, at, known !== undefined && isTransfer(known));
  }

  async #run(id: string): Promise<void> {
    if (this.#stopped) return;
    if (this.#running.has(id)) {
      this.#rerun.add(id);
      return;
    }
    this.#running.add(id);
    try {
      await this.#runUnderLease(id);
    } finally {
      this.#running.delete(id);
      if (this.#rerun.delete(id)) this.kick(id);
    }
  }

  async #runUnderLease(id: string): Promise<void> {
    const { store, leaseTtlMs, now } = this.#o;
    const options = { ttlMs: leaseTtlMs, keepAlive: true };
    const result = await withLease(store, jobLeaseKey(id), options, async (lease) => {
      // Aborted by a cancel (here) or by the lease's loss (the step must then save nothing).
      const controller = new AbortController();
      this.#controllers.set(id, controller);
      try {
        const signal = AbortSignal.any([controller.signal, lease.signal]);
        await this.#stepWhileDue(id, signal, () => lease.renew());
      } finally {
        this.#controllers.delete(id);
      }
    });
    // Another replica drives this job now; look again once its lease could have lapsed.
    if (!result.held) this.#schedule(id, now() + leaseTtlMs / 2);
  }

  /** Runs steps back to back while the job is due, then sets a timer for its next one. */
  async #stepWhileDue(id: string, signal: AbortSignal, holdLease: () => Promise<void>) {
    for (let round = 0; round < 50 && !this.#stopped; round++) {
      const job = await this.#o.repo.get(id);
      if (job === undefined || !isActive(job)) {
        if (job === undefined) await this.#o.repo.forgetActive(id);
        this.#lastStatusAt.delete(id);
        return;
      }
      if ((await this.#o.repo.cancelRequest(id)) !== undefined) {
        // A cancel that arrived while another step held the job.
        const ctx = this.#context(this.#o.logger.child({ jobId: id }), signal, holdLease);
        await cancelNow(this.#o.repo, this.#files, ctx, job);
        return;
      }
      if (job.wakeAt === undefined) return; // waiting for a person
      if (job.wakeAt > this.#o.now()) return this.#schedule(id, job.wakeAt, job);
      const next = await this.#stepSafely(job, signal, holdLease);
      if (signal.reason instanceof LeaseLost) return;
      if (!isActive(next) || next.wakeAt === undefined) return;
      if (next.wakeAt > this.#o.now()) return this.#schedule(id, next.wakeAt, next);
      if (isTransfer(next) !== isTransfer(job)) return this.#schedule(id, next.wakeAt, next);
    }
    this.kick(id);
  }

  async #stepSafely(
    job: ActiveJob,
    signal: AbortSignal,
    holdLease: () => Promise<void>,
  ): Promise<Job> {
    const logger = this.#o.logger.child({ jobId: job.id, stage: job.stage });
    const ctx = this.#context(logger, signal, holdLease);
    try {
      return await runStep(ctx, job);
    } catch (error) {
      const deps = { ...this.#o, files: this.#files, stopped: this.#stopped };
      return afterFailedStep(deps, { ctx, job, error, signal });
    }
  }

  /**
   * Deletes temp files no active job refers to (left by a crash between a step's last
   * save and its clean-up).
   */
  async #removeOrphanFiles(loaded: (Job | undefined)[]): Promise<void> {
    const jobs = loaded.filter((job): job is Job => job !== undefined);
    const count = await this.#files.removeOrphans(jobs);
    if (count > 0) this.#o.logger.info({ count }, "removed orphan temp files");
  }

  #context(logger: Logger, signal: AbortSignal, holdLease: () => Promise<void>): StepContext {
    return createStepContext({
      ...this.#o,
      logger,
      signal,
      holdLease,
      lastStatusAt: this.#lastStatusAt,
      isCanceled: async (id) => (await this.#o.repo.cancelRequest(id)) !== undefined,
      onCanceled: () => new CanceledDuringStep(),
      kick: (id) => this.kick(id),
    });
  }
}
