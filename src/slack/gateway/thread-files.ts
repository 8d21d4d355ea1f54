import { basename, extname } from "node:path";
import type { Job } from "../../jobs/index.ts";
import { safeFileName } from "../../text/index.ts";

export function deliveryOf(job: Job): number {
  return "delivery" in job ? job.delivery : 1;
}

/**
 * "standup - notes.docx", "standup - transcript v2.txt": `findDelivered` looks for exactly these.
 */
export function threadFilename(job: Job, what: string, extension: string): string {
  const stem =
    basename(job.source.filename, extname(job.source.filename)).slice(0, 80) || "meeting";
  const delivery = deliveryOf(job);
  const version = delivery > 1 ? ` v${delivery}` : "";
  // Records stored before names were made safe may hold an unsafe one.
  return safeFileName(`${stem} - ${what}${version}.${extension}`);
}
