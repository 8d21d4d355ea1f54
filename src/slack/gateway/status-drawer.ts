import type { WebClient } from "@slack/web-api";
import type { Job } from "../../jobs/index.ts";
import { inCallScope } from "../rate-budget/call-scope.ts";
import { buildStatusMetadata } from "../views/index.ts";
import type { MessageContent } from "../views/message-content.ts";
import { mayHaveHappened, platformErrorOf } from "./slack-errors.ts";
import type { Priority } from "./status-painter.ts";
import { findStatusMessage } from "./thread-reader.ts";

export interface StatusDrawerOptions {
  client: WebClient;
  urgentClient?: WebClient | undefined;
  /** Only the bot's own messages count as the job's status. */
  botUserId: () => Promise<string>;
}

/**
 * Edits a job's status message, or posts it exactly once: Slack has no idempotency key, so
 * after a post whose answer was lost the next draw reads the thread and adopts it (only
 * then: `conversations.replies` is rationed).
 */
export class StatusDrawer {
  readonly #o: StatusDrawerOptions;
  /** Jobs whose status message may be in the thread, its ts unknown here. */
  readonly #unsure = new Set<string>();
  readonly #absent = new Set<string>();

  constructor(options: StatusDrawerOptions) {
    this.#o = options;
  }

  mayExist(jobId: string): void {
    if (!this.#absent.has(jobId)) this.#unsure.add(jobId);
  }

  forget(jobId: string): void {
    this.#unsure.delete(jobId);
    this.#absent.delete(jobId);
  }

  draw(
    job: Job,
    content: MessageContent,
    ts: string | undefined,
    priority: Priority,
    yieldSignal?: AbortSignal,
  ): Promise<string> {
    const client =
      priority === "progress" ? this.#o.client : (this.#o.urgentClient ?? this.#o.client);
    const person = priority === "person";
    return inCallScope({ person, ...(yieldSignal === undefined ? {} : { yieldSignal }) }, () =>
      this.#draw(client, job, content, ts),
    );
  }

  async #draw(client: WebClient, job: Job, content: MessageContent, ts: string | undefined) {
    const channel = job.origin.channelId;
    if (ts !== undefined) {
      try {
        await client.chat.update({ channel, ts, ...content });
        return ts;
      } catch (error) {
        // The status message was deleted: post a new one rather than lose the buttons.
        if (platformErrorOf(error) !== "message_not_found") throw error;
      }
    }
    const found = await this.#lookFor(job);
    if (found !== undefined) {
      await client.chat.update({ channel, ts: found, ...content });
      return found;
    }
    return this.#post(client, job, content);
  }

  async #lookFor(job: Job): Promise<string | undefined> {
    if (!this.#unsure.has(job.id)) return undefined;
    const found = await findStatusMessage(this.#o.client, job, await this.#o.botUserId());
    this.#unsure.delete(job.id);
    if (found === undefined) this.#absent.add(job.id);
    return found;
  }

  async #post(client: WebClient, job: Job, content: MessageContent): Promise<string> {
    try {
      const posted = await client.chat.postMessage({
        channel: job.origin.channelId,
        thread_ts: job.origin.threadTs,
        ...content,
        metadata: buildStatusMetadata(job.id, job.source.fileId),
      });
      if (typeof posted.ts !== "string") throw new Error("chat.postMessage returned no ts");
      this.#absent.delete(job.id);
      return posted.ts;
    } catch (error) {
      // Slack may have it though its answer was lost: the next draw looks first.
      if (mayHaveHappened(error)) {
        this.#absent.delete(job.id);
        this.#unsure.add(job.id);
      } else {
        this.#absent.add(job.id);
      }
      throw error;
    }
  }
}
