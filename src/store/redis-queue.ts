import type { RedisCalls } from "./redis-client.ts";
import type { RedisProcess } from "./redis-process.ts";
import {
  CLAIM_DUE,
  parseClaimDue,
  RELEASE_LEASE,
  REMOVE_ACTIVE,
  RENEW_LEASE,
  SET_ACTIVE_STAGE,
  SPREAD_OVERDUE,
} from "./redis-scripts.ts";
import { checkTtl } from "./store.ts";

/**
 * The job queue on Redis: leases, the due queue (a sorted set of due times) and the active index.
 * Key names built in a script stay under the store's prefix: one Redis node only.
 */
export class RedisQueue {
  protected readonly calls: RedisCalls;
  protected readonly process: RedisProcess;
  protected readonly prefix: string;
  readonly #dueKey: string;
  readonly #activeKeys: string[];

  constructor(calls: RedisCalls, process: RedisProcess, prefix: string) {
    this.calls = calls;
    this.process = process;
    this.prefix = prefix;
    this.#dueKey = `${prefix}:due`;
    this.#activeKeys = [`${prefix}:active`, `${prefix}:stages`];
  }

  async acquireLease(key: string, ttlMs: number): Promise<string | undefined> {
    const ttl = checkTtl(ttlMs);
    const token = this.process.newToken();
    const reply = await this.calls.run("SET NX", () =>
      this.calls.client.set(this.#leaseKey(key), token, {
        condition: "NX",
        expiration: { type: "PX", value: ttl },
      }),
    );
    return reply === "OK" ? token : undefined;
  }

  async renewLease(key: string, token: string, ttlMs: number): Promise<boolean> {
    const ttl = checkTtl(ttlMs);
    const keys = [this.#leaseKey(key)];
    return (await this.calls.eval("renew", RENEW_LEASE, keys, [token, String(ttl)])) === 1;
  }

  async releaseLease(key: string, token: string): Promise<void> {
    await this.calls.eval("release", RELEASE_LEASE, [this.#leaseKey(key)], [token]);
  }

  async addActive(jobId: string, stage: string): Promise<void> {
    const args = [jobId, `${this.prefix}:stage:`, stage];
    await this.calls.eval("active", SET_ACTIVE_STAGE, this.#activeKeys, args);
  }

  async removeActive(jobId: string): Promise<void> {
    const args = [jobId, `${this.prefix}:stage:`];
    await this.calls.eval("inactive", REMOVE_ACTIVE, this.#activeKeys, args);
  }

  async listActive(): Promise<string[]> {
    return this.calls.run("SMEMBERS", () => this.calls.client.sMembers(`${this.prefix}:active`));
  }

  /** One SCARD per stage: the cost grows with the stages, not with the jobs. */
  async countActive(): Promise<Record<string, number>> {
    const { client } = this.calls;
    const stages = await this.calls.run("SMEMBERS", () => client.sMembers(`${this.prefix}:stages`));
    const counts = await Promise.all(
      stages.map((stage) =>
        this.calls.run("SCARD", () => client.sCard(`${this.prefix}:stage:${stage}`)),
      ),
    );
    return Object.fromEntries(stages.map((stage, i) => [stage, counts[i] ?? 0]));
  }

  async schedule(jobId: string, time: number): Promise<void> {
    const at = await this.process.onRedisClock(time);
    await this.calls.run("ZADD", () =>
      this.calls.client.zAdd(this.#dueKey, { score: at, value: jobId }),
    );
  }

  async unschedule(jobId: string): Promise<void> {
    await this.calls.run("ZREM", () => this.calls.client.zRem(this.#dueKey, jobId));
  }

  /** One script; a process's first claims free the leases its replica's dead processes left. */
  async claimDue(time: number, limit: number, leasePrefix: string, leaseTtlMs: number) {
    const ttl = checkTtl(leaseTtlMs);
    const now = await this.process.onRedisClock(time);
    const [dueKey, leaseKeyPrefix] = [this.#dueKey, this.#leaseKey(leasePrefix)];
    await this.process.reclaimOwnLeases({ now, dueKey, leaseKeyPrefix, ttlMs: ttl });
    const reply = await this.calls.eval(
      "claim-due",
      CLAIM_DUE,
      [dueKey],
      [
        String(Math.floor(now)),
        String(Math.max(0, Math.floor(limit))),
        String(ttl),
        leaseKeyPrefix,
        `${this.process.newToken()}:`,
      ],
    );
    return parseClaimDue(reply as string[]);
  }

  /** One script, under a lease kept for the window: of replicas starting together, one spreads. */
  async spreadOverdue(time: number, windowMs: number, stages: readonly string[]) {
    const window = checkTtl(windowMs);
    const now = await this.process.onRedisClock(time);
    const reply = await this.calls.eval(
      "spread-overdue",
      SPREAD_OVERDUE,
      [this.#dueKey, `${this.prefix}:spread-overdue`],
      [
        String(Math.floor(now)),
        String(window),
        this.process.newToken(),
        `${this.prefix}:stage:`,
        ...stages,
      ],
    );
    return Math.max(0, Number(reply));
  }

  /** The Redis key of the lease `key` (or, given a prefix, of the leases under it). */
  #leaseKey(key: string): string {
    return `${this.prefix}:lease:${key}`;
  }
}
