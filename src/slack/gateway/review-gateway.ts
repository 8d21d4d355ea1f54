import type { WebClient } from "@slack/web-api";
import {
  type Job,
  type ReviewPlace,
  type ReviewPort,
  type ReviewState,
  SlackPortError,
} from "../../jobs/index.ts";
import { optional } from "../../util/optional.ts";
import { localeOf } from "../messages/catalog.ts";
import type { TaggedMessageContent } from "../views/message-content.ts";
import { buildReviewMessage, buildReviewReminder } from "../views/review-message.ts";
import { deliveryOf } from "./thread-files.ts";
import { jobPayloadOf, type SlackMessage } from "./thread-reader.ts";

/** How far before an intent's time a message of its is looked for: the two clocks may differ. */
const CLOCK_MARGIN_MS = 5 * 60_000;

/**
 * Review before posting, in the bot's DM with the starter. A user id as channel would post to
 * their DM with Slackbot (https://docs.slack.dev/reference/methods/chat.postMessage), so the
 * DM's id comes from `conversations.open`.
 */
export class ReviewGateway implements ReviewPort {
  readonly #clientOf: (job: Job) => WebClient;
  readonly #fail: (error: unknown, operation: string) => SlackPortError;

  /** `client`: the job's install's. */
  constructor(options: {
    client: (job: Job) => WebClient;
    fail: (error: unknown, operation: string) => SlackPortError;
  }) {
    this.#clientOf = options.client;
    this.#fail = options.fail;
  }

  async open(job: Job, since?: number): Promise<ReviewPlace> {
    const channelId = await this.#directMessage(job);
    try {
      const earlier = await this.#find(channelId, job, "review", since, job.review?.ts);
      if (earlier !== undefined) return { channelId, ts: earlier };
      const locale = localeOf(job.origin.locale);
      const content = buildReviewMessage(job, { state: "coming" }, { locale });
      return { channelId, ts: await this.#post(job, channelId, content) };
    } catch (error) {
      throw this.#fail(error, "review post");
    }
  }

  async show(job: Job, state: ReviewState): Promise<void> {
    const { review } = job;
    if (review === undefined) return;
    const expiresAt = job.stage === "reviewing" ? job.expiresAt : undefined;
    const options = { locale: localeOf(job.origin.locale), ...optional("expiresAt", expiresAt) };
    const { text, blocks } = buildReviewMessage(job, { state }, options);
    try {
      const channel = review.channelId;
      await this.#clientOf(job).chat.update({ channel, ts: review.ts, text, blocks });
    } catch (error) {
      throw this.#fail(error, "review edit");
    }
  }

  async remind(job: Job, since?: number): Promise<void> {
    const { review } = job;
    if (review === undefined) return;
    try {
      const earlier = await this.#find(review.channelId, job, "review_reminder", since);
      if (earlier !== undefined) return;
      const reminder = buildReviewReminder(job, localeOf(job.origin.locale));
      await this.#post(job, review.channelId, reminder);
    } catch (error) {
      throw this.#fail(error, "review reminder");
    }
  }

  /** A final refusal (no `im:write`, a deactivated person) fails the job saying so. */
  async #directMessage(job: Job): Promise<string> {
    try {
      const opened = await this.#clientOf(job).conversations.open({ users: job.origin.userId });
      const id = opened.channel?.id;
      if (typeof id !== "string" || id === "") throw new Error("conversations.open returned no id");
      return id;
    } catch (error) {
      const wrapped = this.#fail(error, "direct message open");
      if (wrapped.transient) throw wrapped;
      throw new SlackPortError(wrapped.message, {
        transient: false,
        failure: "review_unreachable",
        cause: error,
      });
    }
  }

  async #post(job: Job, channel: string, content: TaggedMessageContent): Promise<string> {
    const posted = await this.#clientOf(job).chat.postMessage({
      channel,
      text: content.text,
      blocks: content.blocks,
      metadata: content.metadata,
      unfurl_links: false,
      unfurl_media: false,
    });
    if (typeof posted.ts !== "string") throw new Error("chat.postMessage returned no ts");
    return posted.ts;
  }

  /**
   * The bot's message of `kind` for this delivery since `since`, other than `known`; read only when
   * a post's outcome is unknown (`since` given).
   */
  async #find(
    channel: string,
    job: Job,
    kind: string,
    since: number | undefined,
    known?: string,
  ): Promise<string | undefined> {
    if (since === undefined) return undefined;
    const delivery = deliveryOf(job);
    const oldest = String(Math.max(0, since - CLOCK_MARGIN_MS) / 1000);
    for await (const page of this.#clientOf(job).paginate("conversations.history", {
      channel,
      oldest,
      include_all_metadata: true,
      limit: 200,
    })) {
      for (const message of (page as { messages?: SlackMessage[] }).messages ?? []) {
        const payload = jobPayloadOf(message, job.id);
        const mine = payload?.kind === kind && payload.delivery === delivery;
        if (mine && message.ts !== undefined && message.ts !== known) return message.ts;
      }
    }
    return undefined;
  }
}
