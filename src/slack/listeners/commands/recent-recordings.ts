import { toSourceFile } from "../../directory/recording-file.ts";
import { requestTenant } from "../../installs/request-tenant.ts";
import type { RecentRecording } from "../../views/recent-select.ts";
import { type ListenerDeps, orWhenStoreDown } from "../deps.ts";

const RECENT_LIMIT = 10;

/**
 * The uploads the bot saw there first (no read), then the channel's latest messages if Slack
 * allows the read. `busy`: Slack held the read and nothing could be offered.
 */
export async function recentRecordings(
  deps: ListenerDeps,
  channel: string,
): Promise<{ recordings: RecentRecording[]; busy: boolean }> {
  const seen = await orWhenStoreDown(
    deps.uploads.recent(requestTenant(), channel, RECENT_LIMIT),
    [],
  );
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
    if (source !== undefined) offer({ fileId: source.fileId, name: source.filename });
  }
  return {
    recordings: recordings.slice(0, RECENT_LIMIT),
    busy: read.busy && recordings.length === 0,
  };
}
