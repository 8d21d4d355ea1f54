import type { Logger } from "pino";
import type { Store } from "../store/index.ts";
import { isActive, type Job, jobSchema } from "./job.ts";

export const channelIndex = (teamId: string, channelId: string) => `channel:${teamId}:${channelId}`;
export const userIndex = (teamId: string, userId: string) => `user:${teamId}:${userId}`;

/**
 * Job records in the store. Every record read back is validated: a record damaged on disk or
 * written by an incompatible version is logged and treated as gone, never trusted.
 */
export class JobRepository {
  readonly #store: Store;
  readonly #retentionMs: number;
  readonly #logger: Logger;

  constructor(store: Store, options: { retentionMs: number; logger: Logger }) {
    this.#store = store;
    this.#retentionMs = options.retentionMs;
    this.#logger = options.logger;
  }

  async get(id: string): Promise<Job | undefined> {
    const raw = await this.#store.get<unknown>("jobs", id);
    if (raw === undefined) return undefined;
    const parsed = jobSchema.safeParse(raw);
    if (!parsed.success) {
      this.#logger.error(
        { jobId: id, issues: parsed.error.issues.slice(0, 3) },
        "unreadable job record",
      );
      return undefined;
    }
    return parsed.data;
  }

  /**
   * Saves a job. Every save restarts its retention period: a job waiting for names is kept
   * as long as a finished one, then expires with its dialog and note.
   */
  async save(job: Job): Promise<void> {
    await this.#store.set("jobs", job.id, job, this.#retentionMs);
    if (isActive(job)) await this.#store.addActive(job.id);
    else await this.#store.removeActive(job.id);
  }

  /** Saves a new job and lists it under its channel and its user. */
  async create(job: Job): Promise<void> {
    await this.save(job);
    await this.#store.pushIndex(channelIndex(job.origin.teamId, job.origin.channelId), job.id);
    await this.#store.pushIndex(userIndex(job.origin.teamId, job.origin.userId), job.id);
  }

  listActiveIds(): Promise<string[]> {
    return this.#store.listActive();
  }

  /** Drops an id from the active index (its record expired or is unreadable). */
  forgetActive(id: string): Promise<void> {
    return this.#store.removeActive(id);
  }

  /** Jobs of an index, newest first; expired ones are skipped. */
  async listIndex(index: string): Promise<Job[]> {
    const ids = await this.#store.listIndex(index);
    const jobs = await Promise.all(ids.map((id) => this.get(id)));
    return jobs.filter((job): job is Job => job !== undefined);
  }
}
