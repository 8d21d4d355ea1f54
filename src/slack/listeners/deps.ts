import type { WebClient } from "@slack/web-api";
import type { Logger } from "pino";
import type { JobService } from "../../jobs/index.ts";
import type { Permissions } from "../permissions.ts";
import type { Responder } from "../response-url.ts";
import type { SlackDirectory } from "../slack-directory.ts";
import type { MessageContent } from "../views/index.ts";

/** What every listener may use. Listeners validate, call the job service, reply — no more. */
export interface ListenerDeps {
  jobs: JobService;
  directory: SlackDirectory;
  /** Who may do what: every listener asks before it changes anything. */
  permissions: Permissions;
  /** Replies to a slash command's response_url. */
  respond: Responder;
  logger: Logger;
  now: () => number;
}

/** Tells one person something in a channel, only they see it; failures are only logged. */
export async function tellUser(
  client: WebClient,
  logger: Logger,
  target: { channel: string; user: string; threadTs?: string },
  content: MessageContent,
): Promise<void> {
  try {
    await client.chat.postEphemeral({
      channel: target.channel,
      user: target.user,
      text: content.text,
      blocks: content.blocks,
      ...(target.threadTs === undefined ? {} : { thread_ts: target.threadTs }),
    });
  } catch (error) {
    logger.warn({ err: error, channel: target.channel }, "could not send an ephemeral reply");
  }
}
