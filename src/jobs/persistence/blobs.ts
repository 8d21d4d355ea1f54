import { createHash } from "node:crypto";
import type { z } from "zod";
import type { Store } from "../../store/index.ts";
import type { Stored } from "../model/stored.ts";

/** By wrapper: a value moved out and read again in the same run is not read back from the store. */
const known = new WeakMap<object, unknown>();

export async function loadStored<T>(
  store: Store,
  stored: Stored<T>,
  schema: z.ZodType<T>,
): Promise<T> {
  if ("inline" in stored) return stored.inline;
  if (known.has(stored)) return known.get(stored) as T;
  const raw = await store.get<unknown>("blobs", stored.blob);
  if (raw === undefined) throw new Error(`The stored value ${stored.blob} is gone.`);
  const value = schema.parse(raw);
  known.set(stored, value);
  return value;
}

/**
 * Moves an inline value out to its blob (named after job and content, so writing twice changes
 * nothing) and turns the wrapper into a reference in place, for every copy that shares it.
 */
export async function moveOut<T>(
  store: Store,
  jobId: string,
  stored: Stored<T>,
  ttlMs: number,
): Promise<{ key: string; written: boolean }> {
  if ("blob" in stored) return { key: stored.blob, written: false };
  const value = stored.inline;
  const text = JSON.stringify(value);
  const key = `${jobId}:${createHash("sha256").update(text).digest("hex").slice(0, 32)}`;
  await store.set("blobs", key, value, ttlMs);
  const wrapper = stored as { blob?: string; inline?: T };
  delete wrapper.inline;
  wrapper.blob = key;
  known.set(stored, value);
  return { key, written: true };
}
