import type { WebClient } from "@slack/web-api";
import { installOf, type KnownJob, type Origin, type StoreResetPort } from "../../jobs/index.ts";
import { localeOf } from "../messages/catalog.ts";
import { buildLostStatus, buildStatusMetadata } from "../views/status-message.ts";
import { platformErrorOf } from "./slack-errors.ts";
import { jobPayloadOf, threadOf } from "./thread-reader.ts";

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
    const client = this.#clientOf(installOf(origin), origin.teamId);
    for await (const message of threadOf(client, origin)) {
      const payload = jobPayloadOf(message);
      if (payload?.kind === "status" && payload.file_id === fileId) return true;
    }
    return false;
  }
}
