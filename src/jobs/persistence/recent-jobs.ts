import { optional } from "../../util/optional.ts";
import { isActive, type Job } from "../model/job.ts";
import type { Origin } from "../model/job-parts.ts";

export interface KnownJob {
  id: string;
  origin: Origin;
  statusTs?: string;
  fileId: string;
  filename: string;
  seenAt: number;
}

export interface RecentJobsOptions {
  capacity?: number;
  maxAgeMs?: number;
  now?: () => number;
}

const DAY_MS = 24 * 60 * 60_000;

/**
 * The unfinished jobs this process read or saved lately, in memory: when the store loses its data,
 * this is all that is left to tell people their notes were lost.
 */
export class RecentJobs {
  readonly #jobs = new Map<string, KnownJob>();
  readonly #o: Required<RecentJobsOptions>;

  constructor(options: RecentJobsOptions = {}) {
    this.#o = { capacity: 5_000, maxAgeMs: 7 * DAY_MS, now: Date.now, ...options };
  }

  note(job: Job): void {
    this.#jobs.delete(job.id);
    if (!isActive(job)) return;
    this.#jobs.set(job.id, {
      id: job.id,
      origin: job.origin,
      ...optional("statusTs", job.statusTs),
      fileId: job.source.fileId,
      filename: job.source.filename,
      seenAt: this.#o.now(),
    });
    // A Map keeps insertion order: the first key is the least recently seen.
    if (this.#jobs.size > this.#o.capacity) {
      const oldest = this.#jobs.keys().next().value;
      if (oldest !== undefined) this.#jobs.delete(oldest);
    }
  }

  forget(id: string): void {
    this.#jobs.delete(id);
  }

  list(): KnownJob[] {
    const since = this.#o.now() - this.#o.maxAgeMs;
    return [...this.#jobs.values()].filter((job) => job.seenAt >= since);
  }
}
