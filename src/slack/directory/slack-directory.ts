import type { WebClient } from "@slack/web-api";
import { LRUCache } from "lru-cache";
import type { Logger } from "pino";
import type { Dispatcher } from "undici";
import { MAX_TEMPLATE_BYTES } from "../../notetaker/index.ts";
import { optional } from "../../util/optional.ts";
import { withTimeout } from "../../util/with-timeout.ts";
import { readSlackFile, type SlackHosts } from "../gateway/download-slack-file.ts";
import { cleanName } from "../views/name-rules.ts";
import { botIsMember, listMembers, type MemberLookups, MemberWalk } from "./members.ts";
import { type MessageRead, readMessage, recentFiles } from "./message-lookups.ts";
import { type SlackFile, slackFileSchema } from "./recording-file.ts";

export interface UserInfo {
  name: string;
  locale: string | undefined;
  isAdmin: boolean;
  isGuest: boolean;
  /** False when Slack could not be asked: the roles are then unknown, not false. */
  known: boolean;
}

/** Names and locales decide nothing, so they may be stale: no decision reads this cache. */
export const USER_CACHE_TTL_MS = 10 * 60_000;
export const MAX_CACHED_USERS = 5_000;
/**
 * How long a decision's look-up may go on before it is "cannot tell". Every look-up runs after
 * the ack, so a slow Slack is waited for as long as a person would wait.
 */
export const DECISION_BUDGET_MS = 120_000;

/** Slack look-ups for listeners; roles and membership, which decide, are never cached. */
export class SlackDirectory {
  readonly #client: WebClient;
  readonly #token: string | (() => Promise<string>);
  readonly #install: () => string;
  readonly #logger: Logger;
  readonly #dispatcher: Dispatcher | undefined;
  readonly #lookups: MemberLookups;
  readonly #users: LRUCache<string, UserInfo>;
  readonly #asking = new Map<string, Promise<UserInfo>>();
  readonly #walks = new Map<string, MemberWalk>();
  readonly #slackHosts: SlackHosts;
  readonly #botUserIds = new Map<string, Promise<string | undefined>>();

  constructor(options: {
    client: WebClient;
    botToken: string | (() => Promise<string>);
    /** The install of the request being handled: the caches are kept per install. */
    install?: () => string;
    slackHosts: SlackHosts;
    logger: Logger;
    dispatcher?: Dispatcher;
    decisionBudgetMs?: number;
    now?: () => number;
  }) {
    const now = options.now;
    this.#users = new LRUCache<string, UserInfo>({
      max: MAX_CACHED_USERS,
      ttl: USER_CACHE_TTL_MS,
      ttlResolution: 0,
      ...optional("perf", now === undefined ? undefined : { now }),
    });
    this.#client = options.client;
    this.#slackHosts = options.slackHosts;
    this.#token = options.botToken;
    this.#install = options.install ?? (() => "");
    this.#logger = options.logger;
    this.#dispatcher = options.dispatcher;
    const budgetMs = options.decisionBudgetMs ?? DECISION_BUDGET_MS;
    this.#lookups = { client: options.client, budgetMs, logger: options.logger };
  }

  /** For showing, never for deciding (see {@link userNow}). */
  async user(userId: string): Promise<UserInfo> {
    return this.cachedUser(userId) ?? this.#ask(userId);
  }

  /** Nothing cached: a role taken away a second ago counts. */
  userNow(userId: string): Promise<UserInfo> {
    // #ask never rejects: only the budget's end is caught here.
    return withTimeout(this.#ask(userId), this.#lookups.budgetMs, "").catch(() =>
      unknownUser(userId),
    );
  }

  cachedUser(userId: string): UserInfo | undefined {
    return this.#users.get(this.#keyOf(userId));
  }

  /** Two installs may see one id differently. */
  #keyOf(id: string): string {
    const install = this.#install();
    return install === "" ? id : `${install}\u0000${id}`;
  }

  #ask(userId: string): Promise<UserInfo> {
    const key = this.#keyOf(userId);
    const asking = this.#asking.get(key);
    if (asking !== undefined) return asking;
    const answer = this.#usersInfo(userId, key).finally(() => this.#asking.delete(key));
    this.#asking.set(key, answer);
    return answer;
  }

  async #usersInfo(userId: string, key: string): Promise<UserInfo> {
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
      this.#users.set(key, info);
      return info;
    } catch (error) {
      this.#logger.warn({ err: error, userId }, "users.info failed; using the id");
      return unknownUser(userId);
    }
  }

  /** Nothing cached; undefined when Slack cannot tell. */
  isMemberNow(channelId: string, userId: string): Promise<boolean | undefined> {
    const key = this.#keyOf(channelId);
    const running = this.#walks.get(key);
    if (running !== undefined) return running.ask(userId);
    const walk = new MemberWalk(() => {
      if (this.#walks.get(key) === walk) this.#walks.delete(key);
    });
    this.#walks.set(key, walk);
    const answer = walk.ask(userId);
    void listMembers(this.#lookups, channelId, walk);
    return answer;
  }

  /** `is_member` is about the bot itself, one call however large the conversation. */
  botIsMemberNow(channelId: string): Promise<boolean | undefined> {
    return botIsMember(this.#lookups, channelId);
  }

  botUserId(): Promise<string | undefined> {
    const install = this.#install();
    const asked = this.#botUserIds.get(install);
    if (asked !== undefined) return asked;
    const answer = this.#client.auth.test().then(
      (result) => result.user_id,
      (error: unknown) => {
        this.#logger.warn({ err: error }, "auth.test failed");
        this.#botUserIds.delete(install);
        return undefined;
      },
    );
    this.#botUserIds.set(install, answer);
    return answer;
  }

  async locale(userId: string): Promise<string | undefined> {
    return (await this.user(userId)).locale;
  }

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

  message(channel: string, ts: string): Promise<MessageRead> {
    return readMessage(this.#client, channel, ts);
  }

  recentFiles(channel: string): Promise<{ files: SlackFile[]; busy: boolean }> {
    return recentFiles(this.#client, channel);
  }

  async permalink(channel: string, ts: string): Promise<string | undefined> {
    return this.#client.chat.getPermalink({ channel, message_ts: ts }).then(
      (r) => r.permalink,
      () => undefined,
    );
  }

  /**
   * A DOCX template into memory, by the recordings' guarded download; `file` from `files.info`,
   * never a payload.
   */
  async smallFile(file: SlackFile): Promise<{ filename: string; data: Uint8Array } | undefined> {
    const url = file.url_private_download ?? file.url_private;
    if (url === undefined) return undefined;
    if ((file.size ?? 0) > MAX_TEMPLATE_BYTES) return undefined;
    try {
      const data = await readSlackFile({
        url,
        token: typeof this.#token === "string" ? this.#token : await this.#token(),
        hosts: this.#slackHosts,
        maxBytes: MAX_TEMPLATE_BYTES,
        ...optional("dispatcher", this.#dispatcher),
      });
      return { filename: file.name ?? `${file.id}.docx`, data };
    } catch (error) {
      this.#logger.warn({ err: error, fileId: file.id }, "small file download failed");
      return undefined;
    }
  }
}

function unknownUser(userId: string): UserInfo {
  return { name: userId, locale: undefined, isAdmin: false, isGuest: false, known: false };
}
