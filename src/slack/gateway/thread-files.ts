import { createReadStream } from "node:fs";
import { basename, extname } from "node:path";
import type { WebClient } from "@slack/web-api";
import type { Job } from "../../jobs/index.ts";
import type { Segment, SpeakerName } from "../../notetaker/index.ts";
import { safeFileName } from "../../text/index.ts";
import { localeOf } from "../messages/catalog.ts";
import { buildTranscript } from "../views/transcript.ts";

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

export function docxFilename(job: Job): string {
  return threadFilename(job, "notes", "docx");
}

export function transcriptFilename(job: Job, extension: "txt" | "vtt"): string {
  return threadFilename(job, "transcript", extension);
}

export async function uploadDocx(client: WebClient, job: Job, path: string): Promise<string> {
  const filename = docxFilename(job);
  const result = await client.filesUploadV2({
    channel_id: job.origin.channelId,
    thread_ts: job.origin.threadTs,
    file: createReadStream(path),
    filename,
    title: filename,
  });
  const id = uploadedFileIds(result)[0];
  if (id === undefined) throw new Error("files.uploadV2 returned no file id");
  return id;
}

/** `.txt` and `.vtt` in one files.uploadV2; resolves with their file ids. */
export async function uploadTranscript(
  client: WebClient,
  job: Job,
  segments: readonly Segment[],
  speakerMap: readonly SpeakerName[],
): Promise<string[]> {
  const locale = localeOf(job.origin.locale);
  const files = buildTranscript(segments, speakerMap, locale).map((file) => {
    const filename = transcriptFilename(job, file.extension);
    return { file: Buffer.from(file.content, "utf8"), filename, title: filename };
  });
  const result = await client.filesUploadV2({
    channel_id: job.origin.channelId,
    thread_ts: job.origin.threadTs,
    file_uploads: files,
  });
  const ids = uploadedFileIds(result);
  if (ids.length !== files.length || ids.some((id) => id === undefined)) {
    throw new Error("files.uploadV2 returned no file id for the transcript");
  }
  return ids as string[];
}

function uploadedFileIds(result: unknown): (string | undefined)[] {
  const uploads = (result as { files?: { files?: { id?: string }[] }[] }).files ?? [];
  return uploads.flatMap((upload) => upload.files ?? []).map((file) => file.id);
}
