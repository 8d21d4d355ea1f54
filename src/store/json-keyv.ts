import { type DeserializedData, Keyv, type KeyvStoreAdapter } from "keyv";

/**
 * Plain JSON instead of Keyv's slow recursive serializer. `expires` comes first, so an
 * entry's expiry can be read from its first bytes (the SQLite migration does).
 */
export function serializeEntry<Value>(data: DeserializedData<Value>): string {
  return JSON.stringify({ expires: data.expires, value: data.value });
}

export function deserializeEntry<Value>(text: string): DeserializedData<Value> | undefined {
  return JSON.parse(text) as DeserializedData<Value> | undefined;
}

/** What every entry with a TTL starts with; entries without one start with `{"value":`. */
export const EXPIRES_PREFIX = '{"expires":';

/**
 * A Keyv that stores plain JSON under our own full keys and rejects on backend errors: an
 * outage must not read as "no such job".
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

/** Whether the entry `text` is alive at `now` (wall clock) and holds the JSON `expected`. */
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
