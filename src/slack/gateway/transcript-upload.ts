import type { WebClient } from "@slack/web-api";
import type { Job } from "../../jobs/index.ts";
import type { Dialog, SpeakerMapEntry } from "../../notetaker/index.ts";
import { localeOf } from "../messages/index.ts";
import { buildTranscript } from "../views/transcript.ts";
import { threadFilename } from "./thread-files.ts";

export function transcriptFilename(job: Job, extension: "txt" | "vtt"): string {
  return threadFilename(job, "transcript", extension);
}

/** `.txt` and `.vtt` in one files.uploadV2; resolves with their file ids. */
export async function uploadTranscript(
  client: WebClient,
  job: Job,
  dialog: Dialog,
  speakerMap: readonly SpeakerMapEntry[],
): Promise<string[]> {
  const locale = localeOf(job.origin.locale);
  const files = buildTranscript(dialog, speakerMap, locale).map((file) => {
    const filename = transcriptFilename(job, file.extension);
    return { file: Buffer.from(file.content, "utf8"), filename, title: filename };
  });
  const result = await client.filesUploadV2({
    channel_id: job.origin.channelId,
    thread_ts: job.origin.threadTs,
    file_uploads: files,
  });
  const uploads = (result as { files?: { files?: { id?: string }[] }[] }).files ?? [];
  const ids = uploads.flatMap((u) => u.files ?? []).map((f) => f.id);
  if (ids.length !== files.length || ids.some((id) => id === undefined)) {
    throw new Error("files.uploadV2 returned no file id for the transcript");
  }
  return ids as string[];
}
