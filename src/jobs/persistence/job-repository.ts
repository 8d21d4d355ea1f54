import type { Logger } from "pino";
import type { Store } from "../../store/index.ts";
import { isActive, type Job, storedJobSchema } from "../model/job.ts";
import type { Stored } from "../model/stored.ts";
import { tenantOfOrigin } from "../model/tenant.ts";
import { moveOut } from "./blobs.ts";
import { JobRequests } from "./job-requests.ts";
import { withLease } from "./with-lease.ts";

export const channelIndex = (teamId: string, channelId: string) => `channel:${teamId}:${channelId}`;
export const userIndex = (teamId: string, userId: string) => `user:${teamId}:${userId}`;
const DAY_MS = 24 * 60 * 60_000;
const DUE_QUEUE_MARK = "due-queue";
/** One process at a time changes a job (runner steps, commands). */
export const jobLeaseKey = (jobId: string) => `job:${jobId}`;
/** See `save`. */
const NEW_JOB_WAIT_MS = 60_000;

type RepositoryOptions = { retentionMs: number; logger: Logger; onSeen?: (job: Job) => void };

/**
 * A record that fails validation (damaged, or of an
 * incompatible version) is logged and treated as gone.
 */
export class JobRepository {
  readonly #store: Store;
  readonly #o: RepositoryOptions;
  readonly requests: JobRequests;

  constructor(store: Store, options: RepositoryOptions) {
    this.#store = store;
    this.#o = options;
    this.requests = new JobRequests(store, { logger: options.logger, ttlMs: options.retentionMs });
  }

  over(store: Store): JobRepository {
    return new JobRepository(store, this.#o);
  }

  async get(id: string): Promise<Job | undefined> {
    const raw = await this.#store.get<unknown>("jobs", id);
    if (raw === undefined) return undefined;
    const parsed = storedJobSchema.safeParse(raw);
    if (!parsed.success) {
      this.#o.logger.error(
        { jobId: id, issues: parsed.error.issues.slice(0, 3) },
        "unreadable job record",
      );
      return undefined;
    }
    this.#o.onSeen?.(parsed.data);
    return parsed.data;
  }

  /**
   * Every save restarts the job's retention. The active index is joined before the record says
   * active and left after, so a crash leaves an extra id, never a job no one resumes.
   */
  async save(job: Job, previous?: Job): Promise<void> {
    await this.#keepBlobs(job, previous);
    const active = isActive(job);
    const wasActive = previous !== undefined && isActive(previous);
    if (active && (!wasActive || previous.stage !== job.stage)) {
      await this.#store.addActive(job.id, job.stage);
    }
    // The due queue learns the next step's time before the record does, so a crash leaves an entry
    // found not due, never a due job nobody claims. A new job's entry first waits a minute: claimed
    // before its record exists, it would be forgotten.
    const due = active ? job.wakeAt : undefined;
    const isNew = previous === undefined;
    if (due !== undefined) await this.#store.schedule(job.id, isNew ? due + NEW_JOB_WAIT_MS : due);
    await this.#store.set("jobs", job.id, job, this.#o.retentionMs);
    if (due !== undefined && isNew) await this.#store.schedule(job.id, due);
    const wasDue = previous === undefined || (wasActive && previous.wakeAt !== undefined);
    if (due === undefined && wasDue) await this.#store.unschedule(job.id);
    if (!active && (previous === undefined || wasActive)) await this.#store.removeActive(job.id);
    this.#o.onSeen?.(job);
  }

  /** For stores written before the due queue existed; later starts read nothing. */
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
    if (queued > 0) this.#o.logger.info({ queued }, "active jobs put in the due queue");
    return queued;
  }

  /**
   * New large values become blobs; on a stage change older blobs get
   * the record's lifetime again (a day more while the job runs).
   */
  async #keepBlobs(job: Job, previous: Job | undefined): Promise<void> {
    const ttlMs = isActive(job) ? this.#o.retentionMs + DAY_MS : this.#o.retentionMs;
    const stageChanged = previous === undefined || previous.stage !== job.stage;
    for (const stored of storedFieldsOf(job)) {
      const { key, written } = await moveOut(this.#store, job.id, stored, ttlMs);
      if (!written && stageChanged) await this.#store.touch("blobs", key, ttlMs);
    }
  }

  async create(job: Job): Promise<void> {
    await this.save(job);
    const tenant = tenantOfOrigin(job.origin);
    await this.#store.pushIndex(channelIndex(tenant, job.origin.channelId), job.id);
    await this.#store.pushIndex(userIndex(tenant, job.origin.userId), job.id);
  }

  listActiveIds(): Promise<string[]> {
    return this.#store.listActive();
  }

  countActiveByStage(): Promise<Record<string, number>> {
    return this.#store.countActive();
  }

  async forget(id: string): Promise<void> {
    const job = await this.get(id);
    for (const stored of job === undefined ? [] : storedFieldsOf(job)) {
      if ("blob" in stored) await this.#store.delete("blobs", stored.blob);
    }
    await this.#store.delete("jobs", id);
    await this.forgetActive(id);
  }

  async forgetActive(id: string): Promise<void> {
    await this.#store.unschedule(id);
    await this.#store.removeActive(id);
  }

  /**
   * Judged under the job's lease: a Regenerate elsewhere may make a
   * finished job active again, and it would never rejoin the index.
   */
  async forgetIfInactive(id: string): Promise<boolean> {
    const result = await withLease(this.#store, jobLeaseKey(id), { ttlMs: 10_000 }, async () => {
      const job = await this.get(id);
      if (job !== undefined && isActive(job)) return false;
      await this.forgetActive(id);
      return true;
    });
    return result.held && result.value;
  }

  async listIndex(index: string): Promise<Job[]> {
    const ids = await this.#store.listIndex(index);
    const jobs = await Promise.all(ids.map((id) => this.get(id)));
    return jobs.filter((job): job is Job => job !== undefined);
  }
}

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
