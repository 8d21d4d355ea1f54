import type { WebClient } from "@slack/web-api";
import type { Logger } from "pino";
import type { Dispatcher } from "undici";
import { MAX_TEMPLATE_BYTES } from "../notetaker/index.ts";
import { readSlackFile, type SlackHosts } from "./gateway/download-slack-file.ts";
import { type SlackFile, slackFileSchema } from "./recording-file.ts";
import { cleanName } from "./views/name-rules.ts";

/** What the bot knows of a member: how to name them, their language, their role. */
export interface UserInfo {
  name: string;
  locale: string | undefined;
  /** A workspace admin or owner (`is_admin`, `is_owner`, `is_primary_owner`). */
  isAdmin: boolean;
  /** A guest: `is_restricted` (multi-channel) or `is_ultra_restricted` (single-channel). */
  isGuest: boolean;
  /** False when Slack could not be asked: the roles above are then unknown, not false. */
  known: boolean;
}

const CACHE_MS = 10 * 60_000;
/** Roles and membership decide permissions: trusted for a minute, then asked again. */
export const FRESH_MS = 60_000;
/** Members read per channel at most (pages of 1,000): a bigger channel is not listed whole. */
const MAX_MEMBER_PAGES = 50;
const MAX_CACHED_CHANNELS = 1_000;

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
  readonly #members = new Map<
    string,
    { ids: Promise<ReadonlySet<string> | undefined>; at: number }
  >();
  readonly #slackHosts: SlackHosts;
  #botUserId: Promise<string | undefined> | undefined;

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

  /**
   * A member's real name (display name, else user name), Slack locale and role. A cached
   * answer is used while younger than `maxAgeMs` (ten minutes for names; permission checks
   * ask for {@link FRESH_MS}).
   */
  async user(userId: string, maxAgeMs = CACHE_MS): Promise<UserInfo> {
    const cached = this.cachedUser(userId, maxAgeMs);
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
      const info: UserInfo = {
        name,
        locale: user?.locale,
        isAdmin:
          user?.is_admin === true || user?.is_owner === true || user?.is_primary_owner === true,
        isGuest: user?.is_restricted === true || user?.is_ultra_restricted === true,
        known: user !== undefined && user.deleted !== true,
      };
      this.#users.set(userId, { info, at: Date.now() });
      return info;
    } catch (error) {
      this.#logger.warn({ err: error, userId }, "users.info failed; using the id");
      return { name: userId, locale: undefined, isAdmin: false, isGuest: false, known: false };
    }
  }

  /** The member as cached by an earlier `user()` call, without asking Slack. */
  cachedUser(userId: string, maxAgeMs = CACHE_MS): UserInfo | undefined {
    const cached = this.#users.get(userId);
    return cached !== undefined && Date.now() - cached.at < maxAgeMs ? cached.info : undefined;
  }

  /**
   * Whether `userId` is in the conversation, from `conversations.members` (cached for
   * {@link FRESH_MS}); undefined when Slack cannot tell (no access, too big, an error).
   */
  async isMember(channelId: string, userId: string): Promise<boolean | undefined> {
    const ids = await this.#membersOf(channelId);
    return ids === undefined ? undefined : ids.has(userId);
  }

  /** The bot's own user id (`auth.test`, asked once). */
  botUserId(): Promise<string | undefined> {
    this.#botUserId ??= this.#client.auth.test().then(
      (result) => result.user_id,
      (error: unknown) => {
        this.#logger.warn({ err: error }, "auth.test failed");
        this.#botUserId = undefined;
        return undefined;
      },
    );
    return this.#botUserId;
  }

  #membersOf(channelId: string): Promise<ReadonlySet<string> | undefined> {
    const cached = this.#members.get(channelId);
    if (cached !== undefined && Date.now() - cached.at < FRESH_MS) return cached.ids;
    if (this.#members.size >= MAX_CACHED_CHANNELS) this.#members.clear();
    // Callers at the same moment share one listing.
    const ids = this.#listMembers(channelId);
    this.#members.set(channelId, { ids, at: Date.now() });
    void ids.then((result) => {
      if (result === undefined) this.#members.delete(channelId);
    });
    return ids;
  }

  async #listMembers(channelId: string): Promise<ReadonlySet<string> | undefined> {
    const ids = new Set<string>();
    let cursor: string | undefined;
    try {
      for (let page = 0; page < MAX_MEMBER_PAGES; page++) {
        const result = await this.#client.conversations.members({
          channel: channelId,
          limit: 1000,
          ...(cursor === undefined ? {} : { cursor }),
        });
        for (const id of result.members ?? []) ids.add(id);
        cursor = result.response_metadata?.next_cursor || undefined;
        if (cursor === undefined) return ids;
      }
      this.#logger.warn({ channelId }, "conversation too large to list its members");
      return undefined;
    } catch (error) {
      this.#logger.warn({ err: error, channelId }, "conversations.members failed");
      return undefined;
    }
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
