import { type DeserializedData, Keyv, type KeyvStoreAdapter } from "keyv";

/**
 * Keyv's default serializer is a hand-written recursive one (slow on large notes and
 * dialogs) that escapes strings starting with ":". Our values are plain JSON, so plain JSON
 * it is. `expires` is written first on purpose: the SQLite sweep reads the expiry from the
 * first bytes of a row instead of parsing whole job records (see `sqlite-store.ts`).
 */
export function serializeEntry<Value>(data: DeserializedData<Value>): string {
  return JSON.stringify({ expires: data.expires, value: data.value });
}

/** The inverse of {@link serializeEntry}. */
export function deserializeEntry<Value>(text: string): DeserializedData<Value> | undefined {
  return JSON.parse(text) as DeserializedData<Value> | undefined;
}

/** What every entry with a TTL starts with; entries without one start with `{"value":`. */
export const EXPIRES_PREFIX = '{"expires":';

/** The expiry time (ms since epoch) of a serialized entry, read from its first bytes. */
export function expiresOf(text: string): number | undefined {
  if (!text.startsWith(EXPIRES_PREFIX)) return undefined;
  const match = /^\d+/.exec(text.slice(EXPIRES_PREFIX.length, EXPIRES_PREFIX.length + 24));
  return match === null ? undefined : Number(match[0]);
}

/**
 * A Keyv over `store` that stores plain JSON, leaves key naming to us (no Keyv prefix: every
 * backend gets the same full keys) and rejects on backend errors instead of answering
 * `undefined` — a Redis outage must not read as "no such job".
 */
export function createJsonKeyv(store: KeyvStoreAdapter | Map<string, unknown>): Keyv {
  const keyv = new Keyv({
    store,
    useKeyPrefix: false,
    serialize: serializeEntry,
    deserialize: deserializeEntry,
    throwOnErrors: true,
  });
  keyv.namespace = undefined;
  return keyv;
}

/**
 * Whether the serialized entry `text` holds, alive at `now` (ms since the epoch, the wall
 * clock Keyv stamps expiries with), the value whose JSON is `expected`. Values are read back
 * from what `JSON.stringify` wrote, so equal values have equal JSON.
 */
export function entryHolds(text: string, expected: string, now: number): boolean {
  let entry: DeserializedData<unknown> | undefined;
  try {
    entry = deserializeEntry(text);
  } catch {
    return false;
  }
  if (entry === undefined || entry === null) return false;
  if (typeof entry.expires === "number" && now > entry.expires) return false;
  return JSON.stringify(entry.value) === expected;
}

/** A value as `set` stores it: the serialized entry, and its expiry (wall clock) if any. */
export function entryOf(
  value: unknown,
  ttlMs: number | undefined,
  now: number,
): { text: string; expires: number | undefined } {
  const expires = ttlMs === undefined ? undefined : now + ttlMs;
  return { text: serializeEntry({ value, expires }), expires };
}
