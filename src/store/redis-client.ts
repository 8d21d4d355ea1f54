import type { createClient } from "@keyv/redis";
import { withTimeout } from "../util/with-timeout.ts";
import { StoreClosedError, StoreError, storeFailure } from "./store.ts";

export type RedisClient = ReturnType<typeof createClient>;

export const DEFAULT_REDIS_TIMEOUT_MS = 2000;

/**
 * Every call of a Redis store, each within its deadline on a timer of its own: node-redis's
 * timeout stops counting once a command is written, so a Redis that never answers would hold
 * every caller. Until a late call is answered, new calls are refused unsent, so callers fail fast.
 */
export class RedisCalls {
  readonly client: RedisClient;
  readonly #timeoutMs: number;
  #unanswered = 0;
  #stalledSince = 0;
  #closed = false;

  constructor(client: RedisClient, timeoutMs: number) {
    this.client = client;
    this.#timeoutMs = timeoutMs;
  }

  get closed(): boolean {
    return this.#closed;
  }

  async run<T>(command: string, call: () => Promise<T>, timeoutMs = this.#timeoutMs): Promise<T> {
    if (this.#closed) throw new StoreClosedError();
    const name = `Redis ${command}`;
    if (this.#unanswered > 0) {
      const ms = Math.round(performance.now() - this.#stalledSince);
      throw new StoreError(`${name} not sent: Redis has not answered for ${ms} ms`, {
        timedOut: true,
      });
    }
    const sentAt = performance.now();
    const pending = call();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), timeoutMs);
      timer.unref();
    });
    try {
      const first = await Promise.race([pending.then((value) => ({ value })), late]);
      if (first !== "late") return first.value;
    } catch (error) {
      throw storeFailure(name, error);
    } finally {
      clearTimeout(timer);
    }
    this.#holdUntilAnswered(pending, sentAt);
    throw new StoreError(`${name} timed out after ${timeoutMs} ms`, { timedOut: true });
  }

  /** A Lua script: Redis runs it atomically, so "check, then act" is one step. */
  eval(name: string, script: string, keys: string[], args: string[]): Promise<unknown> {
    return this.run(`EVAL ${name}`, () => this.client.eval(script, { keys, arguments: args }));
  }

  /** Every key that starts with `prefix`: SCAN steps, each within its own deadline. */
  async scan(prefix: string): Promise<string[]> {
    const match = `${prefix.replace(/[*?[\]\\]/g, (c) => `\\${c}`)}*`;
    const keys: string[] = [];
    let cursor = "0";
    do {
      const reply = await this.run("SCAN", () =>
        this.client.scan(cursor, { MATCH: match, COUNT: 1000 }),
      );
      cursor = String(reply.cursor);
      keys.push(...reply.keys.map(String));
    } while (cursor !== "0");
    return keys;
  }

  /** Refuses further calls and closes the client, bounded: a silent Redis holds up no shutdown. */
  async close(): Promise<void> {
    this.#closed = true;
    const client = this.client;
    if (!client.isOpen) return;
    if (!client.isReady) {
      // Reconnecting: nothing can be flushed, and `close()` would wait for replies forever.
      client.destroy();
      return;
    }
    await withTimeout(client.close(), 2000, "Redis close timed out").catch(() => {
      if (client.isOpen) client.destroy();
    });
  }

  #holdUntilAnswered(pending: Promise<unknown>, sentAt: number): void {
    if (this.#unanswered === 0) this.#stalledSince = sentAt;
    this.#unanswered += 1;
    const answered = () => {
      this.#unanswered -= 1;
    };
    pending.then(answered, answered);
  }
}
