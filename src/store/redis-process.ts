import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { BEAT, RECLAIM_OWN_LEASES } from "./redis-scripts.ts";
import { type ClockSources, StoreClock } from "./store-clock.ts";

/** How often a process says it is alive (and reads Redis's clock). */
const BEAT_MS = 1000;
/** How long a process counts as alive after its last beat: a few beats, missed under load. */
const BEAT_TTL_MS = 3000;
/** A clock off by this much or less before its first reading moves no time given with it. */
const NEGLIGIBLE_SKEW_MS = 1000;

/** Runs one Lua script through the store's own call wrapper (errors, deadlines). */
export type RunScript = (
  command: string,
  script: string,
  keys: string[],
  args: string[],
) => Promise<unknown>;

export interface RedisProcessOptions {
  /** The store's key prefix: heartbeat keys go under it. */
  keyPrefix: string;
  /**
   * The replica's name, the same after a restart: the prefix of its lease tokens, so that
   * a restarted replica knows which leases its previous process held. Default: the host
   * name (a container's, a pod's), letters, digits, `.`, `_` and `-` kept.
   */
  instance?: string;
  /** The host's clocks (tests pass a wall clock that jumps). */
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
 * What one process of a replica does on Redis besides storing. It keeps the store's clock
 * on Redis's own (`TIME`, read with each heartbeat and carried between readings by the
 * monotonic clock): every replica schedules and claims on one clock, whatever its own wall
 * clock says. It beats (a key that lapses {@link BEAT_TTL_MS} after its last beat), and its
 * lease tokens read `instance/boot/…`: a restarted replica frees, at once, the leases of its
 * own earlier processes that no longer beat.
 */
export class RedisProcess {
  readonly clock: StoreClock;
  readonly #run: RunScript;
  readonly #prefix: string;
  /** This process's id: part of its lease tokens and of its heartbeat key. */
  readonly #boot = randomUUID();
  /** `instance/` — what every lease token of this replica, whatever its process, starts with. */
  readonly #instance: string;
  #timer: NodeJS.Timeout | undefined;
  /** Until when (monotonic) claims first look for leases of this replica's dead processes. */
  #reclaimUntil: number | undefined;
  #reclaimed = false;

  constructor(run: RunScript, options: RedisProcessOptions) {
    this.#run = run;
    this.#prefix = options.keyPrefix;
    this.#instance = `${options.instance ?? defaultInstance()}/`;
    this.clock = new StoreClock(options.clock);
  }

  /** Beats now and every second until `stop`. */
  start(): void {
    const beat = () => void this.#beat().catch(() => undefined);
    beat();
    this.#timer = setInterval(beat, BEAT_MS);
    // Housekeeping: never the reason a process stays alive.
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** A lease token of this process: `instance/boot/random`. */
  newToken(): string {
    return `${this.#instance}${this.#boot}/${randomUUID()}`;
  }

  /**
   * `time`, read from the store's clock, on Redis's: until the clock is first set to it (the
   * first beat has not answered yet), it is set now, and `time` moves with it when this
   * host's clock was off by more than a second (less moves no due time that matters).
   */
  async onRedisClock(time: number): Promise<number> {
    if (this.clock.synced) return time;
    const before = this.clock.offset;
    await this.#beat().catch(() => undefined);
    const moved = this.clock.offset - before;
    return Math.abs(moved) > NEGLIGIBLE_SKEW_MS ? time + moved : time;
  }

  /**
   * Frees the leases this replica's earlier processes held on queued jobs (killed mid-step,
   * they would hold those jobs up to a lease time) and makes the jobs due now; nothing once
   * done. Such a lease has this replica's token prefix and the boot of a process that no
   * longer beats. A process killed a moment ago still counts as alive for up to
   * {@link BEAT_TTL_MS}: claims look again until none is left or that time has passed; what
   * is left then belongs to a live process that goes by the same name (two processes on one
   * host), and is left alone.
   */
  async reclaimOwnLeases(o: {
    now: number;
    dueKey: string;
    leaseKeyPrefix: string;
    ttlMs: number;
  }): Promise<void> {
    if (this.#reclaimed) return;
    const reply = (await this.#run(
      "EVAL reclaim",
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

  /** Says this process is alive and reads Redis's clock, setting the store's. */
  async #beat(): Promise<void> {
    const sentAt = this.clock.mono();
    const reply = (await this.#run(
      "EVAL beat",
      BEAT,
      [this.#beatKey(this.#boot)],
      [String(BEAT_TTL_MS)],
    )) as [string, string];
    const receivedAt = this.clock.mono();
    const redisTime = Number(reply[0]) * 1000 + Number(reply[1]) / 1000;
    this.clock.sync(redisTime, sentAt, receivedAt);
  }
}
