import { chmod, mkdir } from "node:fs/promises";
import type { Logger } from "pino";
import type { DueClaim } from "../../store/index.ts";
import { partTimer } from "../../util/part-timer.ts";
import { TempFiles } from "../files/temp-files.ts";
import { type ActiveJob, isActive, type Job } from "../model/job.ts";
import { jobLeaseKey } from "../persistence/job-repository.ts";
import { type HeldLease, LeaseLost, withLease } from "../persistence/with-lease.ts";
import type { MediaPort } from "../ports.ts";
import { isTransfer, runStep } from "../stages/index.ts";
import type { StageObserver } from "./apply-event.ts";
import { applyRequests } from "./apply-requests.ts";
import { DuePump } from "./due-pump.ts";
import {
  defaultFailurePolicy,
  endedByLostInstall,
  type FailurePolicyOptions,
} from "./failure-policy.ts";
import { defaultStageLimits, type JobPorts, type StageLimits, type StepContext } from "./step.ts";
import { createStepContext } from "./step-context.ts";
import { afterFailedStep, RequestWaiting } from "./step-failure.ts";
import { StepScheduler } from "./step-scheduler.ts";

export interface RunnerOptions extends JobPorts {
  /** Where recordings and DOCX files wait between steps; survives a restart. */
  tempDir: string;
  limits?: StageLimits;
  failurePolicy?: FailurePolicyOptions;
  /** How long one replica may drive a job without renewing its lease. */
  leaseTtlMs?: number;
  /**
   * The longest this process goes without looking at the due queue: jobs other replicas
   * schedule, and those a dead replica leaves behind, are seen within this time.
   */
  queueCheckMs?: number;
  /** The shortest time between two claims from the due queue (see `DuePump`). */
  claimGapMs?: number;
  /**
   * Over how long a restart spreads the steps it finds overdue in the stages that may wait
   * (see {@link STAGES_THAT_MAY_WAIT}); 0: none, all due at once. Default: the poll cap.
   */
  restartSpreadMs?: number;
  /** The shortest gap between two progress edits of one status message. */
  statusThrottleMs?: number;
  /** Steps run at once: heavy transfers, and everything else. */
  concurrency?: { transfers: number; calls: number };
  /**
   * The job clock: due times, stage starts, throttles. Default: the store's (`Store.now`),
   * which a wall-clock jump does not move and which replicas on Redis share.
   */
  now?: () => number;
  /** Told of every stage change a step makes (metrics). */
  onStageChange?: StageObserver;
}

export type { StageObserver } from "./apply-event.ts";

/**
 * The stages whose overdue steps a restart spreads out instead of running at once: a poll
 * of a Note Service task (thousands of jobs may be waiting on one, and a poll up to the
 * 15 s cap late is what the guide's own schedule allows) and what waits for a person (a
 * review's reminder, its expiry). The others go first: a job just asked for (`queued`), a
 * transfer under way (`downloading`, `preparing`: a download link, a half-written file)
 * and a note being delivered — people wait for them, they are few, and their Slack calls
 * are paced by the budget and the runner's two transfer slots.
 */
export const STAGES_THAT_MAY_WAIT = ["transcribing", "naming", "writing", "reviewing"] as const;

/**
 * Drives every active job to its end. The time of a job's next step is stored in the job
 * (`wakeAt`) and in the store's due queue; a replica claims due jobs from the queue with
 * their leases (`DuePump`), so exactly one replica works on a job at a time, and a
 * restarted or other replica picks up exactly where the last one stopped.
 */
export class JobRunner {
  readonly #o: Required<
    Omit<RunnerOptions, "limits" | "failurePolicy" | "onStageChange" | "media">
  > & {
    onStageChange: StageObserver | undefined;
    media: MediaPort | undefined;
    limits: StageLimits;
    failurePolicy: FailurePolicyOptions;
  };
  readonly #scheduler: StepScheduler;
  readonly #pump: DuePump;
  readonly #running = new Set<string>();
  readonly #rerun = new Set<string>();
  readonly #controllers = new Map<string, AbortController>();
  readonly #lastStatusAt = new Map<string, number>();
  /** Status draws a person waits for, under way (see {@link JobRunner.settle}). */
  readonly #drawing = new Set<Promise<unknown>>();
  readonly #files: TempFiles;
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
      onStageChange: undefined,
      media: undefined,
      ...options,
    };
    this.#files = new TempFiles(this.#o.tempDir);
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

  /**
   * Puts every active job in the due queue the first time a store is used by this version
   * (a store written before the queue existed), removes orphan temp files, spreads the
   * backlog of steps that fell due while no process ran (so ten thousand overdue polls are
   * not one burst at the Note Service and Slack), and starts claiming due jobs. Resolves to
   * how many active jobs the store holds (from its counts).
   */
  async start(): Promise<number> {
    await this.prepare();
    await this.begin();
    return this.countActive();
  }

  /**
   * What `start` does before any step may run, and may do while the process waits for Slack:
   * the temp folder, orphan files (judged against the records of this disk's files), the due
   * queue filled once. Each part's time is logged ("runner prepared").
   */
  async prepare(): Promise<void> {
    const timer = partTimer();
    // Recordings and DOCX files wait here: private to the app's user (0700).
    await mkdir(this.#o.tempDir, { recursive: true, mode: 0o700 });
    await chmod(this.#o.tempDir, 0o700);
    const { repo } = this.#o;
    const count = await this.#files.removeOrphans((id) => repo.get(id));
    if (count > 0) this.#o.logger.info({ count }, "removed orphan temp files");
    timer.lap("orphans");
    await repo.queueEveryActiveJobOnce();
    timer.lap("queueOnce");
    this.#o.logger.info({ ms: timer.laps }, "runner prepared");
  }

  /**
   * Spreads what fell due while no process ran, then starts claiming at once: the spread
   * belongs right before the first claim (its window starts now), and nothing else waits
   * between them. Resolves once the pump has started (its first claim is under way).
   */
  async begin(): Promise<void> {
    const timer = partTimer();
    // The counts (one read of the active index) beside the spread, for the pace below.
    const [spread, active] = await Promise.all([
      this.#spreadOverdue(),
      this.countActive().catch(() => 0),
    ]);
    timer.lap("spread");
    const { restartSpreadMs, now, concurrency } = this.#o;
    // Behind the spread (this process stalled: starved of CPU, a store call past its
    // deadline), the backlog is caught up a quarter faster than every active job polled
    // once over the window, never slower than a full room a second — not at the process's
    // top speed, which would be the very burst the spread prevents. For two windows at most.
    if (spread > 0) {
      const perSecond = (1.25 * Math.max(spread, active) * 1000) / restartSpreadMs;
      const room = concurrency.calls + concurrency.transfers;
      const at = now();
      this.#pump.pace(Math.max(room, perSecond), at + restartSpreadMs, at + 2 * restartSpreadMs);
    }
    this.#pump.start();
    this.#o.logger.info({ ms: timer.laps }, "runner claiming");
  }

  /** How many active jobs the store holds (from its counts, not a read of every job). */
  async countActive(): Promise<number> {
    const counts = await this.#o.repo.countActiveByStage();
    return Object.values(counts).reduce((sum, n) => sum + n, 0);
  }

  /**
   * Failing, it leaves the backlog as it is: every overdue job due at once, as before.
   * Resolves to how many jobs it moved.
   */
  async #spreadOverdue(): Promise<number> {
    const { store, restartSpreadMs, logger } = this.#o;
    if (restartSpreadMs <= 0) return 0;
    try {
      const spread = await store.spreadOverdue(
        this.#o.now(),
        restartSpreadMs,
        STAGES_THAT_MAY_WAIT,
      );
      if (spread > 0) logger.info({ spread, overMs: restartSpreadMs }, "overdue steps spread");
      return spread;
    } catch (error) {
      logger.warn({ err: error }, "could not spread the overdue steps; all are due now");
      return 0;
    }
  }

  /** Runs the job's next step as soon as possible (a new job, names given, a retry…). */
  kick(id: string): void {
    if (this.#stopped) return;
    // Driven here now: it goes again once this run ends.
    if (this.#running.has(id)) return void this.#rerun.add(id);
    this.#o.store
      .schedule(id, this.#o.now())
      .then(() => this.#pump.wake(true))
      .catch((error: unknown) => this.#o.logger.warn({ err: error, jobId: id }, "kick failed"));
  }

  /**
   * Something was asked of the job (a person's command, a stop): a step driving it in this
   * process gives it up at once, and the runner applies the requests before anything else.
   */
  abort(id: string): void {
    this.#controllers.get(id)?.abort(new RequestWaiting());
  }

  /** Forgets a job whose record was deleted: stops it here and removes its temp files. */
  async discard(id: string): Promise<void> {
    this.abort(id);
    this.#lastStatusAt.delete(id);
    await this.#files.removeAllOf(id);
  }

  /**
   * After a job changed outside a step (a person's command, a stop): its status message
   * shows it at once, as the person waits for it; a job that ended also loses its temp files.
   */
  settle(job: Job): void {
    this.#show(job);
    if (isActive(job)) return;
    const logger = this.#o.logger.child({ jobId: job.id });
    this.#scheduler
      .enqueue(async () => {
        if ("resume" in job) await this.#files.removeNamedBy(job.resume);
        else if (job.stage !== "done") await this.#files.removeAllOf(job.id);
      })
      .catch((error: unknown) => logger.warn({ err: error }, "could not settle the job"));
  }

  /**
   * Draws what a person's command did, at once and ahead of background draws, without
   * holding anything a step needs. A status message whose post may have reached Slack (its
   * answer lost) is looked for first; one never posted is left to the job's next step (the
   * post is checkpointed there). A job whose install lost its tokens has nothing to draw
   * with (the record keeps the sentence for App Home).
   */
  #show(job: Job): void {
    const unposted = job.statusTs === undefined && job.statusPostingAt === undefined;
    if (unposted || endedByLostInstall(job)) return;
    const logger = this.#o.logger.child({ jobId: job.id });
    const mayExist = job.statusTs === undefined;
    const drawing = this.#o.gateway
      .showStatus(job, "person", () => this.#o.repo.get(job.id), mayExist)
      .catch((error: unknown) => logger.warn({ err: error }, "could not update the status message"))
      .finally(() => this.#drawing.delete(drawing));
    this.#drawing.add(drawing);
  }

  /**
   * Resolves once no step runs or waits here and no timer is due: what this process does
   * next, it does on a later timer or a request. (Tests wait for this instead of sleeping.)
   */
  async settled(): Promise<void> {
    for (;;) {
      await this.#scheduler.idle();
      await Promise.all(this.#drawing);
      if (this.#running.size === 0 && this.#drawing.size === 0 && this.#pump.quiet(this.#o.now())) {
        return;
      }
      // A claim is on its way (at most the claim gap from now).
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  }

  /** Jobs claimed here, of which waiting for their turn, and stepping now (metrics). */
  stats() {
    const { queued } = this.#scheduler.stats();
    return { scheduled: this.#pump.driving, queued, running: this.#running.size - queued };
  }

  /**
   * Stops taking work: no new step starts, running steps finish their current stage work
   * (each commit is a checkpoint) or are aborted when `timeoutMs` runs out.
   */
  async stop(timeoutMs = 10_000): Promise<void> {
    this.#stopped = true;
    this.#pump.stop();
    if ((await this.#scheduler.stop(timeoutMs)) === "timeout") {
      for (const controller of this.#controllers.values()) controller.abort(new Error("shutdown"));
      await this.#scheduler.idle();
    }
    await this.#pump.drained();
  }

  /** Drives a job claimed from the due queue, under the lease taken with the claim. */
  async #drive({ jobId: id, token }: DueClaim): Promise<void> {
    const { store, leaseTtlMs, repo } = this.#o;
    this.#running.add(id);
    /** Due time of a job given back at stop: queued again once the lease is free. */
    let giveBackAt: number | undefined;
    try {
      // A lease the store did not release is given back by the pump once the store answers.
      const options = { ttlMs: leaseTtlMs, keepAlive: true, token, throwIfNotReleased: true };
      await withLease(store, jobLeaseKey(id), options, async (lease) => {
        try {
          const job = await repo.get(id);
          const transfer = job !== undefined && isActive(job) && isTransfer(job);
          const ran = await this.#scheduler.run(transfer, () => this.#stepWhileDue(id, lease, job));
          // Stopped (before its turn or mid-step): due at once for the next start, not a lease on.
          const left =
            ran === "dropped"
              ? job
              : this.#stopped
                ? await repo.get(id).catch(() => job)
                : undefined;
          if (left !== undefined && isActive(left)) giveBackAt = left.wakeAt;
        } finally {
          this.#controllers.delete(id);
        }
      });
      // After the release: a claim that found the lease still held would hide it again.
      if (giveBackAt !== undefined) await store.schedule(id, giveBackAt).catch(() => undefined);
    } finally {
      this.#running.delete(id);
      if (this.#rerun.delete(id)) this.kick(id);
    }
  }

  /**
   * Runs steps back to back while the job is due, each under a signal of its own: aborted
   * when something is asked of the job (here) or the lease is lost (the step must then save
   * nothing). What was asked is applied before each step. Each step's save puts the job's
   * next due time in the queue; where no save does, this does.
   */
  async #stepWhileDue(id: string, lease: HeldLease, first: Job | undefined) {
    const { repo, store } = this.#o;
    for (let round = 0; round < 50 && !this.#stopped; round++) {
      const read = round === 0 ? first : await repo.get(id);
      // Asked while another step or nobody held the job (a kick brought it here): first.
      const asked = await applyRequests(this.#applyDeps(), id, read);
      const job = asked.job;
      if (asked.applied > 0 && job !== undefined) this.#afterRequests(job);
      if (job === undefined || !isActive(job)) {
        if (job === undefined) await repo.forgetActive(id);
        else await store.unschedule(id);
        this.#lastStatusAt.delete(id);
        return;
      }
      // Waiting for a person, or not due yet (past the lease, by the claim): queued again.
      if (job.wakeAt === undefined) return void (await store.unschedule(id));
      if (job.wakeAt > this.#o.now()) return void (await store.schedule(id, job.wakeAt));
      const controller = new AbortController();
      this.#controllers.set(id, controller);
      const signal = AbortSignal.any([controller.signal, lease.signal]);
      const next = await this.#stepSafely(job, signal, () => lease.renew());
      this.#controllers.delete(id);
      if (signal.reason instanceof LeaseLost) return;
      // Ended: its folder goes (empty by now, but for what a failure left).
      if (!isActive(next)) await this.#files.removeAllOf(id);
      if (!isActive(next)) return;
      if (next.wakeAt === undefined || next.wakeAt > this.#o.now()) {
        // Asked for during the step (its kick undone by the step's save), or the step gave
        // the job up for it: applied in the next round, else nothing would ever apply it.
        if (signal.reason instanceof RequestWaiting) continue;
        if ((await repo.requests.list(id)).length === 0) return;
        continue;
      }
      // Due now, in the other queue: it goes again once this run ends.
      if (isTransfer(next) !== isTransfer(job)) return this.kick(id);
    }
    this.kick(id);
  }

  /** What a request applied here did: drawn at once; an ended job's temp files go. */
  #afterRequests(job: Job): void {
    this.#show(job);
    if (!isActive(job)) {
      this.#files.removeAllOf(job.id).catch((error: unknown) => {
        this.#o.logger.warn({ err: error, jobId: job.id }, "could not remove temp files");
      });
    }
  }

  #applyDeps() {
    const { onStageChange } = this.#o;
    return { ...this.#o, onStageChange, kick: (id: string) => this.kick(id) };
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

  #context(logger: Logger, signal: AbortSignal, holdLease: () => Promise<void>): StepContext {
    return createStepContext({
      ...this.#o,
      logger,
      signal,
      holdLease,
      lastStatusAt: this.#lastStatusAt,
      requestWaiting: async (id) => (await this.#o.repo.requests.list(id)).length > 0,
      onRequest: () => new RequestWaiting(),
      kick: (id) => this.kick(id),
      stopping: () => this.#stopped,
    });
  }
}
