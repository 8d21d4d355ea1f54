import type { Job } from "../jobs/index.ts";
import type { SlackFile } from "./recording-file.ts";
import { FRESH_MS, type UserInfo } from "./slack-directory.ts";

/**
 * Who may do what (DESIGN.md §9, README "Who may do what"). Every listener asks this module;
 * roles and membership come from Slack (`users.info`, `conversations.members`, cached for
 * a minute), never from what a payload claims.
 *
 * | action                       | allowed                                                   |
 * |------------------------------|-----------------------------------------------------------|
 * | Cancel, Regenerate           | the job's starter; workspace admins and owners            |
 * | Name speakers, Skip, Retry   | the starter; non-guest members of the job's channel       |
 * | channel settings             | non-guest members of the channel                          |
 * | `/meeting-notes` destination | a conversation both the requester and the bot are in      |
 * | `/meeting-notes` recording   | the requester's own upload, or one shared where they are  |
 *
 * When Slack cannot be asked, the answer is no (except for the starter, who needs no
 * look-up).
 */

/** What a person can do to a job from its status message or a command. */
export type JobAction = "cancel" | "regenerate" | "names" | "skip" | "retry";

/** Who could have done it: the refusal sentence says so. */
export type Refusal =
  | "starter_or_admin"
  | "starter_or_member"
  | "channel_member"
  /** The button was not on the job's own status message (forged or copied). */
  | "not_this_job";

export type Decision = { ok: true } | { ok: false; reason: Refusal };

/** Why a destination conversation cannot take the notes. */
export type DestinationProblem = "bot_not_in" | "user_not_in" | "unknown";

/** What the rules need from Slack; `SlackDirectory` provides it. */
export interface PermissionLookups {
  user(userId: string, maxAgeMs?: number): Promise<UserInfo>;
  isMember(channelId: string, userId: string): Promise<boolean | undefined>;
  botUserId(): Promise<string | undefined>;
}

/** Where a click came from, as the interaction payload says. */
export interface ClickPlace {
  channelId: string | undefined;
  messageTs: string | undefined;
  /** The thread the clicked message is in. */
  threadTs?: string | undefined;
}

const ALLOWED: Decision = { ok: true };
const STARTER_OR_ADMIN: ReadonlySet<JobAction> = new Set(["cancel", "regenerate"]);

/** The permission rules, over Slack look-ups. */
export class Permissions {
  readonly #lookups: PermissionLookups;

  constructor(lookups: PermissionLookups) {
    this.#lookups = lookups;
  }

  /**
   * May `userId` do `action` to `job`? A click (`place`) must come from the job's own
   * status message; a command (no place) is checked by the caller against its channel.
   */
  async jobAction(
    action: JobAction,
    job: Job,
    userId: string,
    place?: ClickPlace,
  ): Promise<Decision> {
    if (place !== undefined && !isOwnMessage(job, place)) {
      return { ok: false, reason: "not_this_job" };
    }
    if (userId === job.origin.userId) return ALLOWED;
    if (STARTER_OR_ADMIN.has(action)) {
      const user = await this.#lookups.user(userId, FRESH_MS);
      return user.known && user.isAdmin ? ALLOWED : { ok: false, reason: "starter_or_admin" };
    }
    return (await this.#isNonGuestMember(job.origin.channelId, userId))
      ? ALLOWED
      : { ok: false, reason: "starter_or_member" };
  }

  /** May `userId` read and change the channel's settings? Non-guest members only. */
  async channelSettings(channelId: string, userId: string): Promise<Decision> {
    return (await this.#isNonGuestMember(channelId, userId))
      ? ALLOWED
      : { ok: false, reason: "channel_member" };
  }

  /** Can the notes go to `channelId` for `userId`? Both they and the bot must be in it. */
  async destination(channelId: string, userId: string): Promise<DestinationProblem | undefined> {
    const bot = await this.#lookups.botUserId();
    const [userIn, botIn] = await Promise.all([
      this.#lookups.isMember(channelId, userId),
      bot === undefined ? Promise.resolve(undefined) : this.#lookups.isMember(channelId, bot),
    ]);
    if (userIn === false) return "user_not_in";
    if (botIn === false) return "bot_not_in";
    if (userIn === undefined || botIn === undefined) return "unknown";
    return undefined;
  }

  /**
   * May `userId` have notes made of `file`? Their own upload, or a file shared in a
   * conversation they are in (as `files.info` lists its shares).
   */
  async recording(file: SlackFile, userId: string): Promise<boolean> {
    if (file.user === userId) return true;
    const answers = await Promise.all(
      sharedIn(file).map((channelId) => this.#lookups.isMember(channelId, userId)),
    );
    return answers.includes(true);
  }

  async #isNonGuestMember(channelId: string, userId: string): Promise<boolean> {
    const [user, member] = await Promise.all([
      this.#lookups.user(userId, FRESH_MS),
      this.#lookups.isMember(channelId, userId),
    ]);
    return user.known && !user.isGuest && member === true;
  }
}

/**
 * The click is on the job's status message. Just after the message is posted, before its
 * ts is saved with the job, a message in the job's own thread is taken for it (only this
 * app's messages carry its buttons, so nothing else there can).
 */
function isOwnMessage(job: Job, place: ClickPlace): boolean {
  if (place.channelId !== job.origin.channelId || place.messageTs === undefined) return false;
  if (job.statusTs !== undefined) return place.messageTs === job.statusTs;
  return place.threadTs === job.origin.threadTs;
}

/** Conversations a file was shared in, as `files.info` lists them (at most 20 asked). */
function sharedIn(file: SlackFile): string[] {
  const ids = new Set([
    ...(file.channels ?? []),
    ...(file.groups ?? []),
    ...(file.ims ?? []),
    ...Object.keys(file.shares?.public ?? {}),
    ...Object.keys(file.shares?.private ?? {}),
  ]);
  return [...ids].slice(0, 20);
}
