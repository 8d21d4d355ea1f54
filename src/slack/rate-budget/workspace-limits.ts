import { setTimeout as sleep } from "node:timers/promises";
import type { SlackDistribution } from "../../config-schema.ts";
import { historyAllowance } from "./history-rule.ts";
import { allowanceOf, POST_PER_CHANNEL } from "./method-tiers.ts";
import { channelOf } from "./slack-wire.ts";
import { TokenBucket } from "./token-bucket.ts";

export interface WorkspaceLimitsOptions {
  distribution: SlackDistribution;
  /** The share of each allowance background work may spend; the rest is people's headroom. */
  backgroundShare: number;
  allowanceScale: number;
  now: () => number;
}

/** Slack's limits per workspace: each method's allowance and `Retry-After`, one call in flight. */
export class WorkspaceLimits {
  readonly #o: WorkspaceLimitsOptions;
  readonly #buckets = new Map<string, TokenBucket>();
  /** When each method's `Retry-After` ends. */
  readonly #windows = new Map<string, number>();
  readonly #lanes = new Map<string, Promise<unknown>>();

  constructor(options: WorkspaceLimitsOptions) {
    this.#o = options;
  }

  /** A 429 answered: nothing of `method` is sent before its `Retry-After` ends. */
  close(method: string, retryAfterS: number): void {
    this.#windows.set(method, this.#o.now() + retryAfterS * 1000);
  }

  closedFor(method: string): number {
    const until = this.#windows.get(method);
    if (until === undefined) return 0;
    const left = until - this.#o.now();
    if (left <= 0) this.#windows.delete(method);
    return Math.max(0, left);
  }

  async waitWindow(method: string, init: RequestInit): Promise<void> {
    const signal = init.signal ?? undefined;
    for (let closedMs = this.closedFor(method); closedMs > 0; closedMs = this.closedFor(method)) {
      await sleep(closedMs, undefined, signal ? { signal } : {});
    }
  }

  /** Waits for the method's window to end and for its budget (and its channel's). */
  async takeBudget(method: string, init: RequestInit, urgent: boolean): Promise<void> {
    const signal = init.signal ?? undefined;
    for (;;) {
      await this.waitWindow(method, init);
      if (method === "chat.postMessage") {
        const channel = channelOf(init.body);
        if (channel !== undefined) {
          await this.#bucket(`channel:${channel}`, true).take(signal, urgent);
        }
      }
      await this.#bucket(method, false).take(signal, urgent);
      // A 429 that came while this call waited for its turn: wait that out too.
      if (this.closedFor(method) === 0) return;
    }
  }

  /** A person's call of a rationed method takes the minute's read only when it is free. */
  takeRationed(method: string): boolean {
    if (historyAllowance(method, this.#o.distribution) === undefined) return true;
    return this.#bucket(method, false).tryTake();
  }

  waitMs(method: string): number {
    return this.#bucket(method, false).waitMs;
  }

  /** One background call of a method in flight at a time: none lands inside a 429's Retry-After. */
  inLane<T>(method: string, run: () => Promise<T>): Promise<T> {
    const lanes = this.#lanes;
    const previous = lanes.get(method) ?? Promise.resolve();
    const mine = previous.then(run, run);
    const settled = mine.then(
      () => undefined,
      () => undefined,
    );
    lanes.set(method, settled);
    void settled.then(() => {
      if (lanes.get(method) === settled) lanes.delete(method);
    });
    return mine;
  }

  #bucket(key: string, perChannel: boolean): TokenBucket {
    let bucket = this.#buckets.get(key);
    if (bucket === undefined) {
      const rationed = perChannel ? undefined : historyAllowance(key, this.#o.distribution);
      const base = perChannel ? POST_PER_CHANNEL : (rationed ?? allowanceOf(key));
      // A rationed method's one read is everyone's: no headroom to keep from it.
      const share = rationed !== undefined ? 1 : this.#o.backgroundShare;
      bucket = new TokenBucket(
        {
          perMinute: base.perMinute * share * this.#o.allowanceScale,
          burst: Math.max(1, Math.floor(base.burst * share)),
        },
        this.#o.now,
      );
      this.#buckets.set(key, bucket);
    }
    return bucket;
  }
}
