import type { HomeView, ModalView } from "@slack/types";
import type { WebClient } from "@slack/web-api";
import type { Logger } from "pino";
import { optional } from "../util/optional.ts";
import type { MessageContent } from "./views/message-content.ts";

/** Where an ephemeral message goes: one person, in a channel, maybe in a thread. */
export interface EphemeralTarget {
  channel: string;
  user: string;
  threadTs?: string;
}

/**
 * What listeners say in Slack — modals, App Home, ephemeral and thread replies — on the
 * client that serves people waiting (the budget's interactive lane). The job's own status
 * message and deliveries are the runner's (`SlackGateway`); look-ups are the
 * `SlackDirectory`'s; a slash command's `response_url` is the `Responder`'s. Methods that
 * say they log swallow Slack's refusal; the others throw it, for the caller to decide.
 */
export class SlackResponder {
  readonly #client: WebClient;
  readonly #logger: Logger;

  constructor(options: { client: WebClient; logger: Logger }) {
    this.#client = options.client;
    this.#logger = options.logger;
  }

  /**
   * `views.open` on an interaction's `trigger_id`, which lives 3 seconds: called before any
   * look-up. The opened view's id and hash, for {@link updateModal}.
   */
  async openModal(triggerId: string, view: ModalView): Promise<{ id?: string; hash?: string }> {
    const opened = await this.#client.views.open({ trigger_id: triggerId, view });
    return opened.view ?? {};
  }

  /** `views.update`; with `hash`, Slack refuses it (`hash_conflict`) if the view changed. */
  async updateModal(viewId: string, view: ModalView, hash?: string): Promise<void> {
    await this.#client.views.update({ view_id: viewId, view, ...optional("hash", hash) });
  }

  /** Publishes the person's App Home. */
  async publishHome(userId: string, view: HomeView): Promise<void> {
    await this.#client.views.publish({ user_id: userId, view });
  }

  /** Tells one person something in a channel, only they see it. */
  async ephemeral(target: EphemeralTarget, content: MessageContent): Promise<void> {
    await this.#client.chat.postEphemeral({
      channel: target.channel,
      user: target.user,
      text: content.text,
      blocks: content.blocks,
      ...optional("thread_ts", target.threadTs),
    });
  }

  /** {@link ephemeral}; failures are only logged. */
  async tellUser(target: EphemeralTarget, content: MessageContent): Promise<void> {
    await this.ephemeral(target, content).catch((error: unknown) =>
      this.#logger.warn(
        { err: error, channel: target.channel },
        "could not send an ephemeral reply",
      ),
    );
  }

  /** Answers in a thread, for everyone in it (a recording the bot cannot take, say). */
  async replyInThread(
    target: { channel: string; threadTs: string },
    content: MessageContent,
  ): Promise<void> {
    await this.#client.chat.postMessage({
      channel: target.channel,
      thread_ts: target.threadTs,
      text: content.text,
      blocks: content.blocks,
    });
  }

  /** Tells a channel something (a settings change); failures are only logged. */
  async announce(channel: string, content: MessageContent): Promise<void> {
    await this.#client.chat
      .postMessage({ channel, text: content.text, blocks: content.blocks })
      .catch((error: unknown) =>
        this.#logger.warn(
          { err: error, channelId: channel },
          "could not announce a settings change",
        ),
      );
  }

  /** Replaces a message of the bot's own (a review's first message, once it is over). */
  async updateMessage(target: { channel: string; ts: string }, content: MessageContent) {
    await this.#client.chat.update({ ...target, text: content.text, blocks: content.blocks });
  }

  /** Posts a message of the bot's own that a thread then hangs from; its `ts`. */
  async startThread(channel: string, text: string): Promise<string> {
    const posted = await this.#client.chat.postMessage({ channel, text, mrkdwn: true });
    if (typeof posted.ts !== "string") throw new Error("chat.postMessage returned no ts");
    return posted.ts;
  }
}
