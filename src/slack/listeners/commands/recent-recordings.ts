import { isStoreUnavailable } from "../../../jobs/index.ts";
import { toSourceFile } from "../../directory/recording-file.ts";
import { requestTenant } from "../../installs/request-tenant.ts";
import type { RecentRecording } from "../../views/index.ts";
import type { ListenerDeps } from "../deps.ts";

/** Recent recordings the modal offers, at most. */
const RECENT_LIMIT = 10;

/**
 * Recordings posted in the channel lately, for the `/meeting-notes` modal, newest first:
 * the uploads the bot saw there (stored as their events came, no read), then — when those
 * are fewer than the modal offers — those of the channel's latest messages, if Slack
 * allows the read (fewer messages where it rations it, none outside a channel the bot may
 * read). `busy`: nothing could be offered because Slack held the read (its rate), which
 * the modal says in one sentence.
 */
export async function recentRecordings(
  deps: ListenerDeps,
  channel: string,
): Promise<{ recordings: RecentRecording[]; busy: boolean }> {
  // The store cannot say now: the channel's history still may.
  const seen = await deps.uploads
    .recent(requestTenant(), channel, RECENT_LIMIT)
    .catch((error: unknown) => {
      if (!isStoreUnavailable(error)) throw error;
      return [];
    });
  const recordings: RecentRecording[] = [];
  const offer = (recording: RecentRecording) => {
    if (!recordings.some((r) => r.fileId === recording.fileId)) recordings.push(recording);
  };
  for (const upload of seen) {
    for (const file of upload.files) {
      if (file.recording === true && file.name !== undefined) {
        offer({ fileId: file.id, name: file.name });
      }
    }
  }
  if (recordings.length >= RECENT_LIMIT)
    return { recordings: recordings.slice(0, RECENT_LIMIT), busy: false };
  const read = await deps.directory.recentFiles(channel);
  for (const file of read.files) {
    const source = toSourceFile(file, deps.jobs.canPrepare);
    // The safe name, as the job will have it.
    if (source !== undefined) offer({ fileId: source.fileId, name: source.filename });
  }
  return {
    recordings: recordings.slice(0, RECENT_LIMIT),
    busy: read.busy && recordings.length === 0,
  };
}
