import { NoteTakerLinkExpiredError } from "../../notetaker/index.ts";
import { JobStepError } from "../engine/failure-policy.ts";
import type { StepContext } from "../engine/step.ts";
import { attemptFile, isFile } from "../files/job-files.ts";
import { TempFiles } from "../files/temp-files.ts";
import type { Job, JobIn } from "../model/job.ts";
import { MAX_RELINKS, startWriting } from "../model/job-records.ts";

type Carrying = JobIn<"reviewing"> | JobIn<"delivering">;

/** The note is written again before any part is posted, a few times at most (then undefined). */
export function relinkOrUndefined(job: Carrying, now: number): Job | undefined {
  return job.postedParts > 0 || job.relinks >= MAX_RELINKS
    ? undefined
    : startWriting(job, job.note, job.relinks + 1, job.delivery, now);
}

/**
 * Unless on this disk or uploaded: the link is good for
 * 24 hours, and another replica's disk is not this one.
 */
export async function fetchDocx<J extends Carrying>(ctx: StepContext, job: J): Promise<J | Job> {
  const onDisk = job.docxPath !== undefined && (await isFile(job.docxPath));
  if (onDisk || job.docxFileId !== undefined) return job;
  // This attempt's own file: an aborted earlier one may still be unwinding its clean-up.
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
