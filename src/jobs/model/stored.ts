import { z } from "zod";

/**
 * Large values of a job (the transcript, the note) live under keys of their own in the
 * store's "blobs" namespace, written once; the job record holds a reference and stays small
 * through every poll. A value a step has just made is `inline` until the next save moves it
 * out; a record written before blobs existed holds the value itself, read as `inline`.
 */
export type Stored<T> = { blob: string } | { inline: T };

/** The schema of a {@link Stored} field holding `inner`, legacy values included. */
export function storedSchema<T extends z.ZodType>(inner: T) {
  return z.preprocess(
    (raw) => (isWrapper(raw) ? raw : { inline: raw }),
    z.union([z.object({ blob: z.string().min(1) }), z.object({ inline: inner })]),
  );
}

function isWrapper(raw: unknown): boolean {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return false;
  const keys = Object.keys(raw);
  return keys.length === 1 && (keys[0] === "blob" || keys[0] === "inline");
}

/** A value to keep as a blob. */
export const inline = <T>(value: T): Stored<T> => ({ inline: value });
