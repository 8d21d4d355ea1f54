import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { RedisCalls } from "./redis-client.ts";
import { BEAT, RECLAIM_OWN_LEASES } from "./redis-scripts.ts";
import { type ClockSources, StoreClock } from "./store-clock.ts";

/** How often a process says it is alive (and reads Redis's clock). */
const BEAT_MS = 1000;
/** How long a process counts as alive after its last beat: a few beats, missed under load. */
const BEAT_TTL_MS = 3000;
/** A clock off by this much or less before its first reading moves no time given with it. */
const NEGLIGIBLE_SKEW_MS = 1000;

export interface RedisProcessOptions {
  keyPrefix: string;
  /**
   * The replica's name, the same after a restart (default: the host name): its lease tokens
   * start with it, so a restarted replica knows its previous process's leases.
   */
  instance?: string;
  clock?: ClockSources;
}

/** The host name as a token prefix: no `/`, which separates the token's parts. */
function defaultInstance(): string {
  const name = hostname()
    .replace(/[^A-Za-z0-9._-]/g, "_")
    .slice(0, 64);
  return name || "host";
}

/**
 * One process of a replica on Redis: it keeps the store's clock on Redis's (`TIME`, read at
 * each heartbeat), so replicas schedule on one clock, and its beat and lease tokens
 * (`instance/boot/…`) let a restarted replica free its dead processes' leases at once.
 */
export class RedisProcess {
  readonly clock: StoreClock;
  readonly #calls: Pick<RedisCalls, "eval">;
  readonly #prefix: string;
  readonly #boot = randomUUID();
  readonly #instance: string;
  #timer: NodeJS.Timeout | undefined;
  /** Until when (monotonic) claims first look for leases of this replica's dead processes. */
  #reclaimUntil: number | undefined;
  #reclaimed = false;

  constructor(calls: Pick<RedisCalls, "eval">, options: RedisProcessOptions) {
    this.#calls = calls;
    this.#prefix = options.keyPrefix;
    this.#instance = `${options.instance ?? defaultInstance()}/`;
    this.clock = new StoreClock(options.clock);
  }

  start(): void {
    const beat = () => void this.#beat().catch(() => undefined);
    beat();
    this.#timer = setInterval(beat, BEAT_MS);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** A lease token of this process: `instance/boot/random`. */
  newToken(): string {
    return `${this.#instance}${this.#boot}/${randomUUID()}`;
  }

  /** `time` on Redis's clock: before the first beat, beats now and shifts it by a skew over 1 s. */
  async onRedisClock(time: number): Promise<number> {
    if (this.clock.synced) return time;
    const before = this.clock.offset;
    await this.#beat().catch(() => undefined);
    const moved = this.clock.offset - before;
    return Math.abs(moved) > NEGLIGIBLE_SKEW_MS ? time + moved : time;
  }

  /**
   * Frees the leases this replica's earlier processes (no longer beating) held on queued
   * jobs, and makes the jobs due now. A process killed a moment ago beats for up to
   * BEAT_TTL_MS, so claims look again until then; what is left is a live namesake's.
   */
  async reclaimOwnLeases(o: {
    now: number;
    dueKey: string;
    leaseKeyPrefix: string;
    ttlMs: number;
  }): Promise<void> {
    if (this.#reclaimed) return;
    const reply = (await this.#calls.eval(
      "reclaim",
      RECLAIM_OWN_LEASES,
      [o.dueKey],
      [
        String(Math.floor(o.now)),
        // Claimed jobs sit a lease time ahead at most (or until their lease ends).
        String(2 * o.ttlMs),
        o.leaseKeyPrefix,
        this.#instance,
        this.#boot,
        this.#beatKey(""),
      ],
    )) as [number, number];
    const mono = this.clock.mono();
    this.#reclaimUntil ??= mono + BEAT_TTL_MS + BEAT_MS;
    if (reply[1] === 0 || mono > this.#reclaimUntil) this.#reclaimed = true;
  }

  #beatKey(boot: string): string {
    return `${this.#prefix}:boot:${boot}`;
  }

  async #beat(): Promise<void> {
    const sentAt = this.clock.mono();
    const reply = (await this.#calls.eval(
      "beat",
      BEAT,
      [this.#beatKey(this.#boot)],
      [String(BEAT_TTL_MS)],
    )) as [string, string];
    const receivedAt = this.clock.mono();
    const redisTime = Number(reply[0]) * 1000 + Number(reply[1]) / 1000;
    this.clock.sync(redisTime, sentAt, receivedAt);
  }
}
