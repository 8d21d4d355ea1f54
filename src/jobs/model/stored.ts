import { z } from "zod";

/**
 * Large values (the transcript, the note) live as blobs so the record stays small through every
 * poll; a value just made is `inline` until the next save moves it out.
 */
export type Stored<T> = { blob: string } | { inline: T };

/** Legacy records hold the value itself: read as `inline`. */
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

export const inline = <T>(value: T): Stored<T> => ({ inline: value });
