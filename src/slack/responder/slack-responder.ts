import type { HomeView, ModalView } from "@slack/types";
import type { WebClient } from "@slack/web-api";
import type { Logger } from "pino";
import { optional } from "../../util/optional.ts";
import type { MessageContent } from "../views/message-content.ts";

export interface EphemeralTarget {
  channel: string;
  user: string;
  threadTs?: string;
}

/**
 * What listeners say in Slack, on the budget's interactive lane. Methods that say they log
 * swallow Slack's refusal; the others throw it, for the caller to decide.
 */
export class SlackResponder {
  readonly #client: WebClient;
  readonly #logger: Logger;

  constructor(options: { client: WebClient; logger: Logger }) {
    this.#client = options.client;
    this.#logger = options.logger;
  }

  /** A `trigger_id` lives 3 seconds: call this before any look-up. */
  async openModal(triggerId: string, view: ModalView): Promise<{ id?: string; hash?: string }> {
    const opened = await this.#client.views.open({ trigger_id: triggerId, view });
    return opened.view ?? {};
  }

  /** With `hash`, Slack refuses it (`hash_conflict`) if the view changed. */
  async updateModal(viewId: string, view: ModalView, hash?: string): Promise<void> {
    await this.#client.views.update({ view_id: viewId, view, ...optional("hash", hash) });
  }

  async publishHome(userId: string, view: HomeView): Promise<void> {
    await this.#client.views.publish({ user_id: userId, view });
  }

  async ephemeral(target: EphemeralTarget, content: MessageContent): Promise<void> {
    await this.#client.chat.postEphemeral({
      channel: target.channel,
      user: target.user,
      text: content.text,
      blocks: content.blocks,
      ...optional("thread_ts", target.threadTs),
    });
  }

  /** {@link ephemeral}; logs failures. */
  async tellUser(target: EphemeralTarget, content: MessageContent): Promise<void> {
    await this.ephemeral(target, content).catch((error: unknown) =>
      this.#logger.warn(
        { err: error, channel: target.channel },
        "could not send an ephemeral reply",
      ),
    );
  }

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

  /** Logs failures. */
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

  async updateMessage(target: { channel: string; ts: string }, content: MessageContent) {
    await this.#client.chat.update({ ...target, text: content.text, blocks: content.blocks });
  }

  async startThread(channel: string, text: string): Promise<string> {
    const posted = await this.#client.chat.postMessage({ channel, text, mrkdwn: true });
    if (typeof posted.ts !== "string") throw new Error("chat.postMessage returned no ts");
    return posted.ts;
  }
}
