import type { WebClient } from "@slack/web-api";
import { isActive, type Job, type StatusMode } from "../../jobs/index.ts";
import { localeOf } from "../messages/catalog.ts";
import { inCallScope } from "../rate-budget/call-scope.ts";
import type { MessageContent } from "../views/message-content.ts";
import { buildStatusMessage, buildStatusMetadata } from "../views/status-message.ts";
import { mayHaveHappened, platformErrorOf } from "./slack-errors.ts";
import { type Priority, StatusPainter } from "./status-painter.ts";
import { findStatusMessage } from "./thread-reader.ts";

const PRIORITY: Record<StatusMode, Priority> = {
  progress: "progress",
  stage: "urgent",
  required: "urgent",
  person: "person",
};

type Drawn = { job: Job; content: MessageContent };

export interface StatusDrawerOptions {
  /** The job's install's clients; `urgentClient`'s calls go first in Slack's budget. */
  clientsOf: (job: Job) => { client: WebClient; urgentClient?: WebClient | undefined };
  /** Only the bot's own messages count as the job's status. */
  botUserId: (job: Job) => Promise<string>;
  now?: (() => number) | undefined;
}

/**
 * Posts a job's status message exactly once: Slack has no idempotency key, so after a lost answer
 * the next draw reads the thread (rationed, so only then) and adopts the message it finds.
 */
export class StatusDrawer {
  readonly #o: StatusDrawerOptions;
  /** One per install's client, each with its own share of progress draws. */
  readonly #painters = new WeakMap<WebClient, StatusPainter<Drawn>>();
  /** Jobs whose status message may be in the thread, its ts unknown here. */
  readonly #unsure = new Set<string>();
  readonly #absent = new Set<string>();

  constructor(options: StatusDrawerOptions) {
    this.#o = options;
  }

  /** `SlackPort.showStatus`. */
  async show(
    job: Job,
    mode: StatusMode,
    latest: (() => Promise<Job | undefined>) | undefined,
    statusMayExist: boolean,
  ): Promise<string> {
    if (statusMayExist && !this.#absent.has(job.id)) this.#unsure.add(job.id);
    // A newer state saved elsewhere (another replica) is drawn after this one.
    const recheck =
      latest &&
      (async ({ job: drawn }: Drawn) => {
        const now = await latest();
        if (now === undefined || (now.updatedAt === drawn.updatedAt && now.stage === drawn.stage)) {
          return undefined;
        }
        if (!isActive(now)) this.#forget(now);
        return { job: now, content: this.#contentOf(now) };
      });
    const drawn = { job, content: this.#contentOf(job) };
    const ts = await this.#painterOf(job).paint(
      job.id,
      job.statusTs,
      drawn,
      PRIORITY[mode],
      recheck,
    );
    if (!isActive(job)) this.#forget(job);
    return ts;
  }

  #contentOf(job: Job): MessageContent {
    const now = (this.#o.now ?? Date.now)();
    return buildStatusMessage(job, { locale: localeOf(job.origin.locale), now });
  }

  #painterOf(job: Job): StatusPainter<Drawn> {
    const { client } = this.#o.clientsOf(job);
    let painter = this.#painters.get(client);
    if (painter === undefined) {
      painter = new StatusPainter<Drawn>(
        (drawn, ts, priority, yieldSignal) => this.#drawOne(drawn, ts, priority, yieldSignal),
        ({ content }) => content,
      );
      this.#painters.set(client, painter);
    }
    return painter;
  }

  #forget(job: Job): void {
    this.#painterOf(job).forget(job.id);
    this.#unsure.delete(job.id);
    this.#absent.delete(job.id);
  }

  #drawOne(
    { job, content }: Drawn,
    ts: string | undefined,
    priority: Priority,
    yieldSignal: AbortSignal,
  ): Promise<string> {
    const clients = this.#o.clientsOf(job);
    const client =
      priority === "progress" ? clients.client : (clients.urgentClient ?? clients.client);
    return inCallScope({ person: priority === "person", yieldSignal }, () =>
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
    const { client } = this.#o.clientsOf(job);
    const found = await findStatusMessage(client, job, await this.#o.botUserId(job));
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
