import type { Logger } from "pino";
import { z } from "zod";
import type { Store } from "../../store/index.ts";
import { KeyedMutex } from "../../util/keyed-mutex.ts";
import type { Job } from "../model/job.ts";
import { tenantOfOrigin } from "../model/tenant.ts";
import { withLease } from "../persistence/with-lease.ts";

/**
 * Fair use: recordings downloaded and transcribed at once, per person, per channel and in all; a
 * job over a limit waits in `queued`, in order.
 */
export interface AdmissionLimits {
  perUser: number;
  perChannel: number;
  total: number;
}

export const defaultAdmissionLimits: AdmissionLimits = { perUser: 3, perChannel: 5, total: 20 };

export type Place = { admitted: true } | { admitted: false; ahead: number };

export function holdsSlot(job: Job): boolean {
  return (
    job.stage === "queued" ||
    job.stage === "downloading" ||
    job.stage === "preparing" ||
    job.stage === "transcribing"
  );
}

const slotSchema = z.object({
  id: z.string(),
  user: z.string(),
  channel: z.string(),
  at: z.number(),
});
type Slot = z.infer<typeof slotSchema>;
const recordSchema = z.object({
  running: z.array(slotSchema),
  waiting: z.array(slotSchema),
  checkedAt: z.number(),
});
type AdmissionRecord = z.infer<typeof recordSchema>;

type PendingRelease = {
  jobId: string;
  done: (ready: string[]) => void;
  fail: (error: unknown) => void;
};

const KEY = "admission";
const LEASE_KEY = "admission";
/** Waits up to ~4 s for another replica's turn. */
const ADMISSION_LEASE = { ttlMs: 10_000, retry: { tries: 200, delayMs: 20 } };
/** A crash between two writes can leave a stale id: the lists are checked this often. */
const VERIFY_EVERY_MS = 60_000;

export interface AdmissionOptions {
  store: Store;
  limits: AdmissionLimits;
  logger: Logger;
  stillHolds: (jobId: string) => Promise<boolean>;
  now?: () => number;
}

/**
 * The slots live in the store under one lease so every replica sees the same lists; `applyEvent`
 * gives a slot back as the job leaves the stages that hold one.
 */
export class Admission {
  readonly #o: Required<AdmissionOptions>;
  readonly #inProcess = new KeyedMutex();
  #releases: PendingRelease[] = [];

  constructor(options: AdmissionOptions) {
    this.#o = { now: () => options.store.now(), ...options };
  }

  request(job: Job): Promise<Place> {
    const slot: Slot = {
      id: job.id,
      user: `${tenantOfOrigin(job.origin)}:${job.origin.userId}`,
      channel: `${tenantOfOrigin(job.origin)}:${job.origin.channelId}`,
      at: job.createdAt,
    };
    return this.#locked(async (record) => {
      if (record.running.some((s) => s.id === slot.id)) return { place: { admitted: true } };
      const waiting = record.waiting.some((s) => s.id === slot.id)
        ? record.waiting
        : [...record.waiting, slot].sort((a, b) => a.at - b.at);
      const plan = this.#plan(record.running, waiting);
      const place = plan.places.get(slot.id) ?? { admitted: false, ahead: 1 };
      const next = place.admitted
        ? {
            ...record,
            running: [...record.running, slot],
            waiting: waiting.filter((s) => s.id !== slot.id),
          }
        : { ...record, waiting };
      return { place, next };
    });
  }

  /**
   * Gives the job's slot (or place in line) back; returns the jobs that may start. Releases that
   * arrive while the record is busy are written together: the first caller is told who may start.
   */
  release(jobId: string): Promise<string[]> {
    return new Promise((done, fail) => {
      this.#releases.push({ jobId, done, fail });
      if (this.#releases.length === 1) void this.#releaseBatch();
    });
  }

  async #releaseBatch(): Promise<void> {
    let batch: PendingRelease[] = [];
    try {
      const ready = await this.#locked(async (record) => {
        batch = this.#releases;
        this.#releases = [];
        const ids = new Set(batch.map((r) => r.jobId));
        const next = {
          ...record,
          running: record.running.filter((s) => !ids.has(s.id)),
          waiting: record.waiting.filter((s) => !ids.has(s.id)),
        };
        const changed =
          next.running.length !== record.running.length ||
          next.waiting.length !== record.waiting.length;
        const plan = this.#plan(next.running, next.waiting);
        const place = next.waiting.filter((s) => plan.places.get(s.id)?.admitted).map((s) => s.id);
        return changed ? { place, next } : { place };
      });
      for (const [i, r] of batch.entries()) r.done(i === 0 ? ready : []);
    } catch (error) {
      if (batch.length === 0) [batch, this.#releases] = [this.#releases, []];
      for (const r of batch) r.fail(error);
    }
  }

  /**
   * Admits waiting jobs in order as far as the limits allow,
   * and counts who stands before each job that must wait.
   */
  #plan(running: Slot[], waiting: Slot[]) {
    const { perUser, perChannel, total } = this.#o.limits;
    const byUser = countBy(running, (s) => s.user);
    const byChannel = countBy(running, (s) => s.channel);
    let all = running.length;
    const places = new Map<string, Place>();
    for (const slot of waiting) {
      const users = byUser.get(slot.user) ?? 0;
      const channels = byChannel.get(slot.channel) ?? 0;
      const blocked = {
        user: users >= perUser,
        channel: channels >= perChannel,
        all: all >= total,
      };
      const fits = !blocked.user && !blocked.channel && !blocked.all;
      if (fits) places.set(slot.id, { admitted: true });
      else {
        const over = Math.max(users - perUser, channels - perChannel, all - total);
        places.set(slot.id, { admitted: false, ahead: over + 1 });
      }
      // A waiting job takes its place in line only under the narrowest limit that stops it, so a
      // slot it could not use goes to the next in line.
      if (fits || blocked.user) byUser.set(slot.user, users + 1);
      if (fits || (blocked.channel && !blocked.user)) byChannel.set(slot.channel, channels + 1);
      if (fits || (blocked.all && !blocked.user && !blocked.channel)) all += 1;
    }
    return { places };
  }

  /** One caller here at a time polls the store's lease: a burst of releases otherwise starves. */
  #locked<T>(
    change: (record: AdmissionRecord) => Promise<{ place: T; next?: AdmissionRecord }>,
  ): Promise<T> {
    const { store } = this.#o;
    return this.#inProcess.run(LEASE_KEY, async () => {
      const result = await withLease(store, LEASE_KEY, ADMISSION_LEASE, async () => {
        let record = await this.#read();
        // Saved even when unchanged, else every call of the next minute would check again.
        const check = this.#o.now() - record.checkedAt > VERIFY_EVERY_MS;
        if (check) record = await this.#verify(record);
        const { place, next } = await change(record);
        if (next !== undefined || check) await store.set("meta", KEY, next ?? record);
        return place;
      });
      if (!result.held) throw new Error("The admission lease stayed busy.");
      return result.value;
    });
  }

  async #read(): Promise<AdmissionRecord> {
    const parsed = recordSchema.safeParse(await this.#o.store.get<unknown>("meta", KEY));
    if (parsed.success) return parsed.data;
    return { running: [], waiting: [], checkedAt: 0 };
  }

  async #verify(record: AdmissionRecord): Promise<AdmissionRecord> {
    const keep = async (slots: Slot[]) => {
      const held = await Promise.all(slots.map((s) => this.#o.stillHolds(s.id)));
      return slots.filter((_, i) => held[i]);
    };
    const running = await keep(record.running);
    const waiting = await keep(record.waiting);
    const dropped = record.running.length + record.waiting.length - running.length - waiting.length;
    if (dropped > 0) this.#o.logger.warn({ dropped }, "admission: dropped stale slots");
    return { running, waiting, checkedAt: this.#o.now() };
  }
}

function countBy<T>(items: T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}
