import type { Logger } from "pino";
import type { Store } from "../../store/index.ts";
import { optional } from "../../util/optional.ts";
import { isActive, type Job, storedJobSchema } from "../model/job.ts";
import type { Stored } from "../model/stored.ts";
import { tenantOfOrigin } from "../model/tenant.ts";
import { moveOut } from "./blobs.ts";
import { JobRequests } from "./job-requests.ts";
import { withLease } from "./with-lease.ts";

export const channelIndex = (teamId: string, channelId: string) => `channel:${teamId}:${channelId}`;
export const userIndex = (teamId: string, userId: string) => `user:${teamId}:${userId}`;
const DAY_MS = 24 * 60 * 60_000;
/** Set once every active job of the store is in the due queue. */
const DUE_QUEUE_MARK = "due-queue";
/** The lease under which one process at a time changes a job (runner steps, commands). */
export const jobLeaseKey = (jobId: string) => `job:${jobId}`;
/** How long a new job's queue entry waits for its record to be written (see `save`). */
const NEW_JOB_WAIT_MS = 60_000;

/**
 * Job records in the store. Every record read back is validated: a record damaged on disk or
 * written by an incompatible version is logged and treated as gone, never trusted.
 */
export class JobRepository {
  readonly #store: Store;
  readonly #retentionMs: number;
  readonly #logger: Logger;
  readonly #onSeen: ((job: Job) => void) | undefined;
  /** What people (and a lost install) asked of each job, waiting to be applied. */
  readonly requests: JobRequests;

  /** `onSeen` hears of every job record read or saved (what the process knows of its jobs). */
  constructor(
    store: Store,
    options: { retentionMs: number; logger: Logger; onSeen?: (job: Job) => void },
  ) {
    this.#store = store;
    this.#retentionMs = options.retentionMs;
    this.#logger = options.logger;
    this.#onSeen = options.onSeen;
    this.requests = new JobRequests(store, { logger: options.logger, ttlMs: options.retentionMs });
  }

  /** The same repository over another view of the store (the job service's, say). */
  over(store: Store): JobRepository {
    const onSeen = optional("onSeen", this.#onSeen);
    return new JobRepository(store, {
      retentionMs: this.#retentionMs,
      logger: this.#logger,
      ...onSeen,
    });
  }

  async get(id: string): Promise<Job | undefined> {
    const raw = await this.#store.get<unknown>("jobs", id);
    if (raw === undefined) return undefined;
    const parsed = storedJobSchema.safeParse(raw);
    if (!parsed.success) {
      this.#logger.error(
        { jobId: id, issues: parsed.error.issues.slice(0, 3) },
        "unreadable job record",
      );
      return undefined;
    }
    this.#onSeen?.(parsed.data);
    return parsed.data;
  }

  /**
   * Saves a job. Every save restarts its retention period: a job waiting for names is kept
   * as long as a finished one, then expires with its dialog and note.
   *
   * `previous` is the record this save replaces, as read under the job's lease. The active
   * index changes only when the job enters or leaves the active stages or changes stage
   * (it feeds the stage gauge). It joins the index before its record says active and leaves
   * it after, so a crash in between leaves an extra id (counted by the gauge until a
   * workspace's data is forgotten), never an active job that no one resumes.
   */
  async save(job: Job, previous?: Job): Promise<void> {
    await this.#keepBlobs(job, previous);
    const active = isActive(job);
    const wasActive = previous !== undefined && isActive(previous);
    // The stage is recorded with the id (for counts without reads) on every stage change.
    if (active && (!wasActive || previous.stage !== job.stage)) {
      await this.#store.addActive(job.id, job.stage);
    }
    // The due queue learns the next step's time before the record does: a crash between
    // the two leaves an entry the runner finds not due, never a due job nobody claims.
    // A new job's entry first waits a minute: claimed before its record exists, it would be
    // found missing and forgotten (seen with two replicas claiming as fast as jobs came).
    const due = active ? job.wakeAt : undefined;
    const isNew = previous === undefined;
    if (due !== undefined) await this.#store.schedule(job.id, isNew ? due + NEW_JOB_WAIT_MS : due);
    await this.#store.set("jobs", job.id, job, this.#retentionMs);
    if (due !== undefined && isNew) await this.#store.schedule(job.id, due);
    const wasDue = previous === undefined || (wasActive && previous.wakeAt !== undefined);
    if (due === undefined && wasDue) await this.#store.unschedule(job.id);
    if (!active && (previous === undefined || wasActive)) await this.#store.removeActive(job.id);
    this.#onSeen?.(job);
  }

  /**
   * Puts every active job with a next step in the due queue, once per store: a store
   * written before the queue existed. Later starts read nothing. Returns how many jobs
   * the queue holds for now (0 on later starts: the queue is not counted).
   */
  async queueEveryActiveJobOnce(): Promise<number> {
    if ((await this.#store.get<number>("meta", DUE_QUEUE_MARK)) !== undefined) return 0;
    let queued = 0;
    for (const id of await this.#store.listActive()) {
      const job = await this.get(id);
      if (job === undefined || !isActive(job)) {
        await this.forgetIfInactive(id);
        continue;
      }
      if (job.wakeAt === undefined) continue;
      await this.#store.schedule(id, job.wakeAt);
      queued += 1;
    }
    await this.#store.set("meta", DUE_QUEUE_MARK, 1);
    if (queued > 0) this.#logger.info({ queued }, "active jobs put in the due queue");
    return queued;
  }

  /**
   * Writes the job's new large values as blobs (the record then holds references) and, on a
   * stage change, gives its older blobs the record's lifetime again: a blob outlives its
   * record while the job runs (a day more), and goes with it once the job is over.
   */
  async #keepBlobs(job: Job, previous: Job | undefined): Promise<void> {
    const ttlMs = isActive(job) ? this.#retentionMs + DAY_MS : this.#retentionMs;
    const stageChanged = previous === undefined || previous.stage !== job.stage;
    for (const stored of storedFieldsOf(job)) {
      const { key, written } = await moveOut(this.#store, job.id, stored, ttlMs);
      if (!written && stageChanged) await this.#store.touch("blobs", key, ttlMs);
    }
  }

  /** Saves a new job and lists it under its channel and its user. */
  async create(job: Job): Promise<void> {
    await this.save(job);
    const tenant = tenantOfOrigin(job.origin);
    await this.#store.pushIndex(channelIndex(tenant, job.origin.channelId), job.id);
    await this.#store.pushIndex(userIndex(tenant, job.origin.userId), job.id);
  }

  listActiveIds(): Promise<string[]> {
    return this.#store.listActive();
  }

  /** Active jobs per stage, from the index alone (no job is read). */
  countActiveByStage(): Promise<Record<string, number>> {
    return this.#store.countActive();
  }

  /** Deletes a job's record and takes it out of the active index (its workspace is gone). */
  async forget(id: string): Promise<void> {
    const job = await this.get(id);
    for (const stored of job === undefined ? [] : storedFieldsOf(job)) {
      if ("blob" in stored) await this.#store.delete("blobs", stored.blob);
    }
    await this.#store.delete("jobs", id);
    await this.#store.unschedule(id);
    await this.#store.removeActive(id);
  }

  /** Drops an id from the active index (its record expired or is unreadable). */
  async forgetActive(id: string): Promise<void> {
    await this.#store.unschedule(id);
    await this.#store.removeActive(id);
  }

  /**
   * Drops an id from the active index unless its job is active, judged under the job's
   * lease: a Regenerate on another replica may make a finished job active again between
   * the caller's read and this removal, and would then never join the index again.
   * Leaves the id alone while anyone holds the lease.
   */
  async forgetIfInactive(id: string): Promise<boolean> {
    const result = await withLease(this.#store, jobLeaseKey(id), { ttlMs: 10_000 }, async () => {
      const job = await this.get(id);
      if (job !== undefined && isActive(job)) return false;
      await this.#store.unschedule(id);
      await this.#store.removeActive(id);
      return true;
    });
    return result.held && result.value;
  }

  /** Jobs of an index, newest first; expired ones are skipped. */
  async listIndex(index: string): Promise<Job[]> {
    const ids = await this.#store.listIndex(index);
    const jobs = await Promise.all(ids.map((id) => this.get(id)));
    return jobs.filter((job): job is Job => job !== undefined);
  }
}

/**
 * The large values a record holds (transcript, quotes, note), a failed job's resume point
 * included.
 */
function storedFieldsOf(job: Job): Stored<unknown>[] {
  switch (job.stage) {
    case "naming":
      return [job.dialog, job.quotes];
    case "writing":
      return [job.note.dialog, job.note.quotes];
    case "reviewing":
    case "delivering":
    case "done":
      return [job.note.dialog, job.note.quotes, job.markdown];
    case "failed":
      return storedFieldsOf(job.resume);
    default:
      return [];
  }
}
