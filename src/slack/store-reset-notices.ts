import type { WebClient } from "@slack/web-api";
import { installOf, type KnownJob, type Origin, type StoreResetPort } from "../jobs/index.ts";
import { platformErrorOf } from "./gateway/slack-errors.ts";
import { METADATA_EVENT_TYPE } from "./ids.ts";
import { localeOf } from "./messages/index.ts";
import { buildLostStatus, buildStatusMetadata } from "./views/index.ts";

interface ThreadMessage {
  metadata?: { event_type?: string; event_payload?: Record<string, unknown> };
}

/**
 * The Slack side of a store that lost its data: a lost job's status message becomes one
 * sentence, and a thread's status metadata tells whether an upload was already started.
 */
export class SlackStoreResetNotices implements StoreResetPort {
  readonly #clientOf: (install: string, teamId: string) => WebClient;

  /** The runner's urgent client (people wait for this), or with installs one per install. */
  constructor(client: WebClient | ((install: string, teamId: string) => WebClient)) {
    this.#clientOf = typeof client === "function" ? client : () => client;
  }

  /** Edits the status message, or posts one when the job had none or it was deleted. */
  async tellJobLost(job: KnownJob): Promise<void> {
    const content = buildLostStatus(localeOf(job.origin.locale));
    const metadata = buildStatusMetadata(job.id, job.fileId);
    const channel = job.origin.channelId;
    const client = this.#clientOf(installOf(job.origin), job.origin.teamId);
    if (job.statusTs !== undefined) {
      try {
        await client.chat.update({ channel, ts: job.statusTs, ...content, metadata });
        return;
      } catch (error) {
        if (platformErrorOf(error) !== "message_not_found") throw error;
      }
    }
    await client.chat.postMessage({
      channel,
      thread_ts: job.origin.threadTs,
      ...content,
      metadata,
    });
  }

  async threadHasStatusFor(origin: Origin, fileId: string): Promise<boolean> {
    for await (const page of this.#clientOf(installOf(origin), origin.teamId).paginate(
      "conversations.replies",
      {
        channel: origin.channelId,
        ts: origin.threadTs,
        include_all_metadata: true,
        limit: 200,
      },
    )) {
      const messages = (page as { messages?: ThreadMessage[] }).messages ?? [];
      if (messages.some((message) => isStatusOf(message, fileId))) return true;
    }
    return false;
  }
}

function isStatusOf(message: ThreadMessage, fileId: string): boolean {
  const { metadata } = message;
  if (metadata?.event_type !== METADATA_EVENT_TYPE) return false;
  const payload = metadata.event_payload ?? {};
  return payload.kind === "status" && payload.file_id === fileId;
}
