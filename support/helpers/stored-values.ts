import { z } from "zod";
import type { Job } from "../../src/jobs/index.ts";
import type { Stored } from "../../src/jobs/model/stored.ts";
import { loadStored } from "../../src/jobs/persistence/blobs.ts";
import { dialogSchema } from "../../src/notetaker/schemas.ts";
import type { Store } from "../../src/store/index.ts";

/** The job with its transcript and note read from their blobs: what a test compares. */
export async function withValuesInline(store: Store, job: Job): Promise<Job> {
  const copy = structuredClone(job);
  const load = async <T>(stored: Stored<T>, schema: z.ZodType<T>) => ({
    inline: await loadStored(store, stored, schema),
  });
  if (copy.stage === "naming") copy.dialog = await load(copy.dialog, dialogSchema);
  if (copy.stage === "writing" || copy.stage === "delivering" || copy.stage === "done") {
    copy.note.dialog = await load(copy.note.dialog, dialogSchema);
  }
  if (copy.stage === "delivering" || copy.stage === "done") {
    copy.markdown = await load(copy.markdown, z.string());
  }
  if (copy.stage === "failed") copy.resume = (await withValuesInline(store, copy.resume)) as never;
  return copy;
}

/** The value of a field a test read inline (see {@link withValuesInline}). */
export function inlineValue<T>(stored: Stored<T>): T {
  if ("inline" in stored) return stored.inline;
  throw new Error(`expected the value inline, found a reference to ${stored.blob}`);
}
