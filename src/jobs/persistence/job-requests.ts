import type { Logger } from "pino";
import { z } from "zod";
import type { Store } from "../../store/index.ts";
import { type EventOf, type JobRequest, jobRequestSchema } from "../model/events.ts";
import { withLease } from "./with-lease.ts";

export type StopEvent = EventOf<"canceled" | "failed">;

/** An earlier version kept one stop here (a cancel as a bare name). */
const storedSchema = z.union([
  z.array(jobRequestSchema),
  z.string().transform((by) => [{ type: "canceled" as const, by }]),
  jobRequestSchema.transform((request) => [request]),
]);

/** The old stop request's key, so a cancel recorded by an earlier version is read. */
const requestsKey = (jobId: string) => `cancel:${jobId}`;
/** Held by the list's writers for a read and a write, never by a step. */
const lockKey = (jobId: string) => `requests:${jobId}`;
const LOCK = { ttlMs: 10_000, retry: { tries: 200, delayMs: 10 } };

export class RequestsLocked extends Error {
  constructor(jobId: string) {
    super(`The requests of job ${jobId} stayed locked.`);
    this.name = this.constructor.name;
  }
}

/**
 * Each job's waiting requests, applied in order by whoever holds the job's lease. Writers take the
 * list's own short lock, never the job's, so no step can keep a command from being recorded.
 */
export class JobRequests {
  readonly #store: Store;
  readonly #logger: Logger;
  readonly #ttlMs: number;

  constructor(store: Store, options: { logger: Logger; ttlMs: number }) {
    this.#store = store;
    this.#logger = options.logger;
    this.#ttlMs = options.ttlMs;
  }

  async list(jobId: string): Promise<JobRequest[]> {
    const value = await this.#store.get<unknown>("meta", requestsKey(jobId));
    if (value === undefined) return [];
    const parsed = storedSchema.safeParse(value);
    if (parsed.success) return parsed.data;
    this.#logger.warn({ jobId }, "unreadable job requests: the job is canceled");
    return [{ type: "canceled", by: "unknown" }];
  }

  /**
   * `decide` sees the waiting requests under the list's
   * lock: two commands are judged one after the other.
   */
  async record<T>(
    jobId: string,
    decide: (waiting: JobRequest[]) => Promise<{ value: T; add?: JobRequest }>,
  ): Promise<T> {
    return this.#locked(jobId, async () => {
      const waiting = await this.list(jobId);
      const decision = await decide(waiting);
      if (decision.add !== undefined) await this.#write(jobId, [...waiting, decision.add]);
      return decision.value;
    });
  }

  /**
   * `alone`: earlier requests are forgotten (the job is about to be deleted); the stop outlives the
   * record so a step still under way saves nothing.
   */
  async stop(jobId: string, stop: StopEvent, alone = false): Promise<void> {
    if (alone) return this.#locked(jobId, () => this.#write(jobId, [stop]));
    return this.record(jobId, async () => ({ value: undefined, add: stop }));
  }

  async remove(jobId: string, count: number): Promise<void> {
    if (count <= 0) return;
    await this.#locked(jobId, async () => {
      const left = (await this.list(jobId)).slice(count);
      await this.#write(jobId, left);
    });
  }

  async #write(jobId: string, requests: JobRequest[]): Promise<void> {
    if (requests.length === 0) await this.#store.delete("meta", requestsKey(jobId));
    else await this.#store.set("meta", requestsKey(jobId), requests, this.#ttlMs);
  }

  async #locked<T>(jobId: string, work: () => Promise<T>): Promise<T> {
    const result = await withLease(this.#store, lockKey(jobId), LOCK, work);
    if (!result.held) throw new RequestsLocked(jobId);
    return result.value;
  }
}
