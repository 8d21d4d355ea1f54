import { optional } from "../../util/optional.ts";
import { isActive, type Job, type Origin } from "../model/job.ts";

/** What a process remembers of a job it drove or saw: enough to tell its people it was lost. */
export interface KnownJob {
  id: string;
  origin: Origin;
  /** The job's status message, once posted. */
  statusTs?: string;
  fileId: string;
  filename: string;
  /** When this process last read or saved the job (ms since the epoch). */
  seenAt: number;
}

/** How much is remembered, and for how long. */
export interface RecentJobsOptions {
  /** The most jobs remembered; the least recently seen go first (default 5,000). */
  capacity?: number;
  /** A job not seen for this long is forgotten (default 7 days). */
  maxAgeMs?: number;
  now?: () => number;
}

const DAY_MS = 24 * 60 * 60_000;

/**
 * The unfinished jobs this process drove or saw lately (every job record it read or saved),
 * kept in memory apart from the store: when the store loses its data, this is what is left
 * to tell people whose notes were lost. Bounded in number and age; a finished job is dropped
 * (its notes are in its thread already).
 */
export class RecentJobs {
  readonly #jobs = new Map<string, KnownJob>();
  readonly #capacity: number;
  readonly #maxAgeMs: number;
  readonly #now: () => number;

  constructor(options: RecentJobsOptions = {}) {
    this.#capacity = options.capacity ?? 5_000;
    this.#maxAgeMs = options.maxAgeMs ?? 7 * DAY_MS;
    this.#now = options.now ?? Date.now;
  }

  /** Remembers an unfinished job as seen now; forgets a finished one. */
  note(job: Job): void {
    this.#jobs.delete(job.id);
    if (!isActive(job)) return;
    this.#jobs.set(job.id, {
      id: job.id,
      origin: job.origin,
      ...optional("statusTs", job.statusTs),
      fileId: job.source.fileId,
      filename: job.source.filename,
      seenAt: this.#now(),
    });
    // A Map keeps insertion order: the first key is the least recently seen.
    if (this.#jobs.size > this.#capacity) {
      const oldest = this.#jobs.keys().next().value;
      if (oldest !== undefined) this.#jobs.delete(oldest);
    }
  }

  forget(id: string): void {
    this.#jobs.delete(id);
  }

  /** The jobs seen within the age limit, least recently seen first. */
  list(): KnownJob[] {
    const since = this.#now() - this.#maxAgeMs;
    return [...this.#jobs.values()].filter((job) => job.seenAt >= since);
  }
}
