import { NoteTakerLinkExpiredError } from "../../notetaker/index.ts";
import { JobStepError } from "../engine/failure-policy.ts";
import type { StepContext } from "../engine/step.ts";
import { attemptFile, isFile } from "../files/job-files.ts";
import { TempFiles } from "../files/temp-files.ts";
import type { Job, JobIn } from "../model/job.ts";
import { MAX_RELINKS, startWriting } from "../model/job-records.ts";

/** A written note on its way: to its review, or to the thread. */
type Carrying = JobIn<"reviewing"> | JobIn<"delivering">;

/**
 * The link died before the DOCX was fetched: the note is written again — before any part
 * is posted, a few times at most (undefined: not any more).
 */
export function relinkOrUndefined(job: Carrying, now: number): Job | undefined {
  return job.postedParts > 0 || job.relinks >= MAX_RELINKS
    ? undefined
    : startWriting(job, job.note, job.relinks + 1, job.delivery, now);
}

/**
 * Fetches the DOCX unless it is on this disk or already uploaded: its link is good for
 * 24 hours, and another replica's disk is not this one. An expired link rewrites the note.
 */
export async function fetchDocx<J extends Carrying>(ctx: StepContext, job: J): Promise<J | Job> {
  const onDisk = job.docxPath !== undefined && (await isFile(job.docxPath));
  if (onDisk || job.docxFileId !== undefined) return job;
  // A file of this attempt's own: an earlier attempt aborted mid-download may still be
  // unwinding, and its clean-up must not take the file this one writes.
  const path = attemptFile(ctx, job, "notes", ".docx");
  await TempFiles.makeFolderFor(path);
  try {
    await ctx.client.downloadDocx(job.docxUrl, path, ctx.signal);
  } catch (error) {
    if (!(error instanceof NoteTakerLinkExpiredError)) throw error;
    if (job.relinks >= MAX_RELINKS) throw new JobStepError({ code: "docx_expired" }, true);
    ctx.logger.warn({ jobId: job.id }, "DOCX link expired before download; rewriting the note");
    return ctx.commit(job, { type: "docx_link_expired" });
  }
  return ctx.update(job, { type: "docx_downloaded", docxPath: path });
}
