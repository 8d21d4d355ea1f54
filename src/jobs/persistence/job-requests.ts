import type { Logger } from "pino";
import { z } from "zod";
import { speakerNameSchema } from "../../notetaker/wire.ts";
import type { Store } from "../../store/index.ts";
import type { EventOf } from "../model/events.ts";
import { failureSchema } from "../model/job.ts";
import { withLease } from "./with-lease.ts";

/**
 * What is asked of a job from outside its steps: a person's
 * command, or a stop because its install lost its tokens.
 */
export type JobRequest = EventOf<
  | "names_given"
  | "naming_skipped"
  | "retried"
  | "regenerate"
  | "review_posted"
  | "review_discarded"
  | "canceled"
  | "failed"
>;
export type StopEvent = EventOf<"canceled" | "failed">;

const members = z.record(z.string(), z.string()).optional();
const requestSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("names_given"),
    speakerMap: z.array(speakerNameSchema),
    members,
    contextText: z.string().optional(),
    templateId: z.string().optional(),
  }),
  z.object({ type: z.literal("naming_skipped") }),
  z.object({ type: z.literal("retried") }),
  z.object({
    type: z.literal("regenerate"),
    speakerMap: z.array(speakerNameSchema).optional(),
    members,
    contextText: z.string().optional(),
    templateId: z.string().optional(),
  }),
  z.object({ type: z.literal("review_posted"), by: z.string() }),
  z.object({ type: z.literal("review_discarded"), by: z.string() }),
  z.object({ type: z.literal("canceled"), by: z.string() }),
  z.object({ type: z.literal("failed"), failure: failureSchema, retryable: z.boolean() }),
]);
/** An earlier version kept one stop here (a cancel as a bare name). */
const storedSchema = z.union([
  z.array(requestSchema),
  z.string().transform((by) => [{ type: "canceled" as const, by }]),
  requestSchema.transform((request) => [request]),
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
 * Each job's waiting requests, oldest first, recorded the moment they arrive and applied in order
 * by whoever holds the job's lease. Writers take the list's own short lock, never the job's: no
 * step can keep a command from being recorded.
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
    // Read from JSON, so no optional field holds `undefined`.
    if (parsed.success) return parsed.data as JobRequest[];
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
