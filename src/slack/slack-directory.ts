import type { WebClient } from "@slack/web-api";
import type { Logger } from "pino";
import type { Dispatcher } from "undici";
import { MAX_TEMPLATE_BYTES } from "../notetaker/index.ts";
import { readSlackFile, type SlackHosts } from "./gateway/download-slack-file.ts";
import { type SlackFile, slackFileSchema } from "./recording-file.ts";

interface UserInfo {
  name: string;
  locale: string | undefined;
}

const CACHE_MS = 10 * 60_000;

/**
 * Slack look-ups the listeners need: people's real names and locales (cached briefly, as
 * every job and every speaker modal asks), file objects, and small files (DOCX templates).
 */
export class SlackDirectory {
  readonly #client: WebClient;
  readonly #token: string;
  readonly #logger: Logger;
  readonly #dispatcher: Dispatcher | undefined;
  readonly #users = new Map<string, { info: UserInfo; at: number }>();
  readonly #slackHosts: SlackHosts;

  constructor(options: {
    client: WebClient;
    botToken: string;
    /** Slack's hosts (`slackHostsOf(SLACK_API_URL)`): file downloads go only there. */
    slackHosts: SlackHosts;
    logger: Logger;
    dispatcher?: Dispatcher;
  }) {
    this.#client = options.client;
    this.#slackHosts = options.slackHosts;
    this.#token = options.botToken;
    this.#logger = options.logger;
    this.#dispatcher = options.dispatcher;
  }

  /** A member's real name (display name, else user name), and their Slack locale. */
  async user(userId: string): Promise<UserInfo> {
    const cached = this.cachedUser(userId);
    if (cached !== undefined) return cached;
    try {
      const result = await this.#client.users.info({ user: userId, include_locale: true });
      const user = result.user;
      const name =
        user?.real_name?.trim() ||
        user?.profile?.real_name?.trim() ||
        user?.profile?.display_name?.trim() ||
        user?.name ||
        userId;
      const info = { name, locale: user?.locale };
      this.#users.set(userId, { info, at: Date.now() });
      return info;
    } catch (error) {
      this.#logger.warn({ err: error, userId }, "users.info failed; using the id");
      return { name: userId, locale: undefined };
    }
  }

  /** The member as cached by an earlier `user()` call, without asking Slack. */
  cachedUser(userId: string): UserInfo | undefined {
    const cached = this.#users.get(userId);
    return cached !== undefined && Date.now() - cached.at < CACHE_MS ? cached.info : undefined;
  }

  async locale(userId: string): Promise<string | undefined> {
    return (await this.user(userId)).locale;
  }

  /** The full file object (`files.info`), validated; undefined when Slack cannot give it. */
  async file(fileId: string): Promise<SlackFile | undefined> {
    try {
      const result = await this.#client.files.info({ file: fileId });
      const parsed = slackFileSchema.safeParse(result.file);
      return parsed.success ? parsed.data : undefined;
    } catch (error) {
      this.#logger.warn({ err: error, fileId }, "files.info failed");
      return undefined;
    }
  }

  /**
   * Downloads a small file (a DOCX template, at most 10 MB) into memory, by the same guarded
   * download as recordings (Slack's hosts only, https, the token nowhere else), stopping at
   * the cap while it streams. Undefined when it cannot be had.
   */
  async smallFile(fileId: string): Promise<{ filename: string; data: Uint8Array } | undefined> {
    const file = await this.file(fileId);
    const url = file?.url_private_download ?? file?.url_private;
    if (file === undefined || url === undefined) return undefined;
    if ((file.size ?? 0) > MAX_TEMPLATE_BYTES) return undefined;
    try {
      const data = await readSlackFile({
        url,
        token: this.#token,
        hosts: this.#slackHosts,
        maxBytes: MAX_TEMPLATE_BYTES,
        ...(this.#dispatcher === undefined ? {} : { dispatcher: this.#dispatcher }),
      });
      return { filename: file.name ?? `${fileId}.docx`, data };
    } catch (error) {
      this.#logger.warn({ err: error, fileId }, "small file download failed");
      return undefined;
    }
  }
}
