import { basename, extname } from "node:path";
import type { Job } from "../../jobs/index.ts";
import { safeFileName } from "../../text/index.ts";

/** Which delivery of the job's note (1, then 2… after each Regenerate). */
export function deliveryOf(job: Job): number {
  return "delivery" in job ? job.delivery : 1;
}

/**
 * The name of a file the bot puts in the job's thread: the recording's name, what the file
 * is, and the delivery number after a Regenerate ("standup - notes.docx", "standup -
 * transcript v2.txt"). `findDelivered` looks for exactly these names.
 */
export function threadFilename(job: Job, what: string, extension: string): string {
  const stem =
    basename(job.source.filename, extname(job.source.filename)).slice(0, 80) || "meeting";
  const delivery = deliveryOf(job);
  const version = delivery > 1 ? ` v${delivery}` : "";
  // A job stored before file names were made safe may still hold an unsafe one.
  return safeFileName(`${stem} - ${what}${version}.${extension}`);
}
