import { setTimeout as delay } from "node:timers/promises";
import type { WebClient } from "@slack/web-api";
import type { Logger } from "pino";
import { backoffDelayMs, retry } from "../../util/backoff.ts";
import { optional } from "../../util/optional.ts";
import { platformErrorOf, toGatewayError } from "../gateway/slack-errors.ts";

/** Slack may return fewer than asked (https://docs.slack.dev/apis/web-api/pagination). */
const MAX_MEMBER_PAGES = 200;
/**
 * "specify a limit value under 1000"
 * (https://docs.slack.dev/reference/methods/conversations.members).
 */
const MEMBER_PAGE = 999;
const LOOKUP_RETRY = { baseMs: 250, maxMs: 5_000, jitter: 0.2 } as const;

/** The client, and how long a decision's look-up may go on before it is "cannot tell". */
export interface MemberLookups {
  client: WebClient;
  budgetMs: number;
  logger: Logger;
}

/**
 * One paged listing of a conversation's members shared by the checks waiting on it; each hears
 * `true` as soon as its person shows up. Once over it takes no one new: a later check lists afresh.
 */
export class MemberWalk {
  readonly #seen = new Set<string>();
  readonly #waiting = new Map<string, ((member: boolean | undefined) => void)[]>();
  readonly #onOver: () => void;
  #over = false;

  constructor(onOver: () => void) {
    this.#onOver = onOver;
  }

  get over(): boolean {
    return this.#over;
  }

  ask(userId: string): Promise<boolean | undefined> {
    if (this.#seen.has(userId)) return Promise.resolve(true);
    return new Promise((resolve) => {
      this.#waiting.set(userId, [...(this.#waiting.get(userId) ?? []), resolve]);
    });
  }

  /** Reads one page; true when no check is left waiting. */
  take(members: readonly string[]): boolean {
    for (const id of members) {
      this.#seen.add(id);
      for (const resolve of this.#waiting.get(id) ?? []) resolve(true);
      this.#waiting.delete(id);
    }
    return this.#waiting.size === 0;
  }

  /** Over: every check still waiting hears `member` (false: not in the list read whole). */
  end(member: false | undefined): void {
    if (this.#over) return;
    this.#over = true;
    this.#onOver();
    for (const waiting of this.#waiting.values()) for (const resolve of waiting) resolve(member);
    this.#waiting.clear();
  }
}

/** Lists the conversation's members into `walk` until everyone asked is found. */
export async function listMembers(
  o: MemberLookups,
  channelId: string,
  walk: MemberWalk,
): Promise<void> {
  const timer = setTimeout(() => {
    o.logger.warn({ channelId }, "conversation members not listed in time");
    walk.end(undefined);
  }, o.budgetMs);
  timer.unref();
  let cursor: string | undefined;
  try {
    for (let page = 0; page < MAX_MEMBER_PAGES && !walk.over; page++) {
      const result = await retried(
        () =>
          o.client.conversations.members({
            channel: channelId,
            limit: MEMBER_PAGE,
            ...optional("cursor", cursor),
          }),
        () => walk.over,
      );
      cursor = result.response_metadata?.next_cursor || undefined;
      if (walk.take(result.members ?? []) || cursor === undefined) return walk.end(false);
    }
    if (!walk.over) o.logger.warn({ channelId }, "conversation too large to list");
    walk.end(undefined);
  } catch (error) {
    o.logger.warn({ err: error, channelId }, "conversations.members failed");
    walk.end(undefined);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `is_member` is about the token's own user
 * (https://docs.slack.dev/reference/objects/conversation-object); a private channel the bot is
 * not in answers `channel_not_found`.
 */
export async function botIsMember(
  o: MemberLookups,
  channelId: string,
): Promise<boolean | undefined> {
  const started = Date.now();
  try {
    const result = await retried(
      () => o.client.conversations.info({ channel: channelId }),
      () => Date.now() - started >= o.budgetMs,
    );
    return result.channel?.is_member === true;
  } catch (error) {
    if (platformErrorOf(error) === "channel_not_found") return false;
    o.logger.warn({ err: error, channelId }, "conversations.info failed");
    return undefined;
  }
}

/** Tried again while Slack fails for a passing reason, until `over`; a refusal is final. */
function retried<T>(call: () => Promise<T>, over: () => boolean): Promise<T> {
  let failed: unknown;
  return retry(
    // Over while it waited: the failure stands.
    () => (failed !== undefined && over() ? Promise.reject(failed) : call()),
    (error, attempt) => {
      failed = error;
      const failure = toGatewayError(error, "look-up");
      if (!failure.transient || over()) return undefined;
      return Math.max(backoffDelayMs(LOOKUP_RETRY, attempt), failure.retryAfterMs ?? 0);
    },
    (ms) => delay(ms, undefined, { ref: false }),
  );
}
