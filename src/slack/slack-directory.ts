import type { WebClient } from "@slack/web-api";
import type { Logger } from "pino";
import { type Dispatcher, getGlobalDispatcher, request } from "undici";
import { MAX_TEMPLATE_BYTES } from "../notetaker/index.ts";
import { type SlackFile, slackFileSchema } from "./recording-file.ts";
import { cleanName } from "./views/index.ts";

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
  readonly #dispatcher: Dispatcher;
  readonly #users = new Map<string, { info: UserInfo; at: number }>();
  readonly #isSlackHost: (host: string) => boolean;

  constructor(options: {
    client: WebClient;
    botToken: string;
    isSlackHost: (host: string) => boolean;
    logger: Logger;
    dispatcher?: Dispatcher;
  }) {
    this.#client = options.client;
    this.#isSlackHost = options.isSlackHost;
    this.#token = options.botToken;
    this.#logger = options.logger;
    this.#dispatcher = options.dispatcher ?? getGlobalDispatcher();
  }

  /** A member's real name (display name, else user name), and their Slack locale. */
  async user(userId: string): Promise<UserInfo> {
    const cached = this.cachedUser(userId);
    if (cached !== undefined) return cached;
    try {
      const result = await this.#client.users.info({ user: userId, include_locale: true });
      const user = result.user;
      // Names go to the Note Service and into the note: no invisible characters.
      const name =
        cleanName(user?.real_name ?? "") ||
        cleanName(user?.profile?.real_name ?? "") ||
        cleanName(user?.profile?.display_name ?? "") ||
        cleanName(user?.name ?? "") ||
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

  /** Downloads a small file (a DOCX template, at most 10 MB) into memory. */
  async smallFile(fileId: string): Promise<{ filename: string; data: Uint8Array } | undefined> {
    const file = await this.file(fileId);
    const url = file?.url_private_download ?? file?.url_private;
    if (file === undefined || url === undefined) return undefined;
    if ((file.size ?? 0) > MAX_TEMPLATE_BYTES) return undefined;
    if (!URL.canParse(url) || !this.#isSlackHost(new URL(url).host)) return undefined;
    const response = await request(url, {
      dispatcher: this.#dispatcher,
      headers: { authorization: `Bearer ${this.#token}` },
    });
    const type = String(response.headers["content-type"] ?? "");
    if (response.statusCode !== 200 || type.includes("text/html")) {
      await response.body.dump();
      return undefined;
    }
    const data = new Uint8Array(await response.body.arrayBuffer());
    if (data.byteLength > MAX_TEMPLATE_BYTES) return undefined;
    return { filename: file.name ?? `${fileId}.docx`, data };
  }
}
