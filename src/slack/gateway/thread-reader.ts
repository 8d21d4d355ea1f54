import type { WebClient } from "@slack/web-api";
import type { DeliveredState, Job, Origin } from "../../jobs/index.ts";
import { METADATA_EVENT_TYPE } from "../ids.ts";
import { deliveryOf, docxFilename, transcriptFilename } from "./thread-files.ts";

/** A message as Slack lists it with `include_all_metadata`. */
export interface SlackMessage {
  ts?: string;
  user?: string;
  metadata?: { event_type?: string; event_payload?: Record<string, unknown> };
  files?: { id?: string; name?: string; title?: string }[];
}

/**
 * Read only when an earlier call's outcome is unknown: `conversations.replies` is rationed
 * (history-rule.ts).
 */
export async function* threadOf(client: WebClient, origin: Origin): AsyncGenerator<SlackMessage> {
  for await (const page of client.paginate("conversations.replies", {
    channel: origin.channelId,
    ts: origin.threadTs,
    include_all_metadata: true,
    limit: 200,
  })) {
    yield* (page as { messages?: SlackMessage[] }).messages ?? [];
  }
}

/** The metadata of a message the bot posted for job `jobId` (for any job when undefined). */
export function jobPayloadOf(
  message: SlackMessage,
  jobId?: string,
): Record<string, unknown> | undefined {
  const { metadata } = message;
  if (metadata?.event_type !== METADATA_EVENT_TYPE) return undefined;
  const payload = metadata.event_payload ?? {};
  return jobId === undefined || payload.job_id === jobId ? payload : undefined;
}

/** Parts by their metadata, files by their names; a transcript half found counts as none. */
export async function findDelivered(client: WebClient, job: Job): Promise<DeliveredState> {
  const parts = new Set<number>();
  let docxFileId: string | undefined;
  const transcript = new Map<string, string>();
  const transcriptNames = new Set([transcriptFilename(job, "txt"), transcriptFilename(job, "vtt")]);
  const wanted = docxFilename(job);
  for await (const message of threadOf(client, job.origin)) {
    const part = notePartOf(message, job.id, deliveryOf(job));
    if (part !== undefined) parts.add(part);
    const file = message.files?.find((f) => f.name === wanted || f.title === wanted);
    if (file?.id !== undefined) docxFileId = file.id;
    for (const f of message.files ?? []) {
      if (f.id !== undefined && f.name !== undefined && transcriptNames.has(f.name)) {
        transcript.set(f.name, f.id);
      }
    }
  }
  const transcriptFileIds =
    transcript.size === transcriptNames.size ? [...transcript.values()] : [];
  return { parts: [...parts].sort((a, b) => a - b), docxFileId, transcriptFileIds };
}

export async function findStatusMessage(
  client: WebClient,
  job: Job,
  botUserId: string,
): Promise<string | undefined> {
  for await (const message of threadOf(client, job.origin)) {
    if (message.user !== botUserId || message.ts === undefined) continue;
    const payload = jobPayloadOf(message, job.id);
    if (payload?.kind === "status") return message.ts;
  }
  return undefined;
}

function notePartOf(message: SlackMessage, jobId: string, delivery: number): number | undefined {
  const payload = jobPayloadOf(message, jobId);
  if (payload?.kind !== "note_part" || payload.delivery !== delivery) return undefined;
  return typeof payload.part === "number" ? payload.part : undefined;
}
