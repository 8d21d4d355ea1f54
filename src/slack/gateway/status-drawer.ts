import type { WebClient } from "@slack/web-api";
import type { Job } from "../../jobs/index.ts";
import { inCallScope } from "../rate-budget/call-scope.ts";
import type { MessageContent } from "../views/message-content.ts";
import { buildStatusMetadata } from "../views/status-message.ts";
import { mayHaveHappened, platformErrorOf } from "./slack-errors.ts";
import type { Priority } from "./status-painter.ts";
import { findStatusMessage } from "./thread-reader.ts";

export interface StatusDrawerOptions {
  client: WebClient;
  /** The same as `client`, its calls first in Slack's budget: status changes people wait for. */
  urgentClient?: WebClient | undefined;
  /** The bot's own user id (`auth.test`): only its messages count as the job's status. */
  botUserId: () => Promise<string>;
}

/**
 * Draws a job's status message: edits it, or posts it when the job has none, exactly once.
 * `chat.postMessage` is not idempotent and Slack has no idempotency key, so a post whose
 * answer was lost (a reset, a timeout, a 5xx after Slack took it) may be in the thread: the
 * next draw first reads the thread for the bot's message carrying the job's status metadata
 * and adopts it, instead of posting a second. The thread is read only then — after such a
 * failure in this process, or when the job layer says an earlier run's post may be there —
 * never on the normal path (`conversations.replies` is Tier 3, or rationed: thread-reader.ts).
 */
export class StatusDrawer {
  readonly #o: StatusDrawerOptions;
  /** Jobs whose status message may be in the thread, its ts unknown here. */
  readonly #unsure = new Set<string>();
  /** Jobs known here to have no status message (the thread read, or posts refused since). */
  readonly #absent = new Set<string>();

  constructor(options: StatusDrawerOptions) {
    this.#o = options;
  }

  /** An earlier run's post of this job's status may be in the thread, its ts unsaved. */
  mayExist(jobId: string): void {
    if (!this.#absent.has(jobId)) this.#unsure.add(jobId);
  }

  /** Forgets a job (it ended). */
  forget(jobId: string): void {
    this.#unsure.delete(jobId);
    this.#absent.delete(jobId);
  }

  /**
   * Edits the status message at `ts`, or posts it in the thread when there is none; an
   * urgent draw (a stage change, a prompt) goes before progress figures in Slack's budget,
   * a person's before everything (see `CallScope`), and once `yieldSignal` aborts the draw
   * stops waiting for Slack.
   */
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

  /** The status message a post of unknown outcome left in the thread, when one may be there. */
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
