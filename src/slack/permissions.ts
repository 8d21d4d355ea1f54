import type { Job } from "../jobs/index.ts";
import type { SlackFile } from "./recording-file.ts";
import type { UserInfo } from "./slack-directory.ts";

/**
 * Who may do what (README "Who may do what"). Every listener asks this module; roles and
 * membership come from Slack as they are at the moment of the decision (`users.info`,
 * `conversations.members`, never a cached answer: someone removed from the channel or no
 * longer an admin is refused at their very next click), never from what a payload claims.
 *
 * | action                       | allowed                                                   |
 * |------------------------------|-----------------------------------------------------------|
 * | Cancel, Regenerate           | the job's starter; workspace admins and owners            |
 * | Post to thread, Discard      | the same (review before posting)                          |
 * | Name speakers, Skip, Retry   | the starter; non-guest members of the job's channel       |
 * | channel settings             | non-guest members of the channel                          |
 * | `/meeting-notes` destination | a conversation both the requester and the bot are in      |
 * | `/meeting-notes` recording   | the requester's own upload, or one shared where they are  |
 * | a modal's DOCX template      | the submitter's own upload, or one shared where they are  |
 *
 * When Slack cannot be asked, or does not answer within `DECISION_BUDGET_MS`, the answer is
 * no (except for the starter and a file's uploader, who need no look-up).
 */

/** What a person can do to a job from its status message or a command. */
export type JobAction = "cancel" | "regenerate" | "names" | "skip" | "retry" | "post" | "discard";

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

/**
 * What the rules need from Slack, as it is now; `SlackDirectory` provides it. Undefined
 * membership, or an unknown user, means Slack could not tell: the answer is then no.
 */
export interface PermissionLookups {
  userNow(userId: string): Promise<UserInfo>;
  isMemberNow(channelId: string, userId: string): Promise<boolean | undefined>;
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
const STARTER_OR_ADMIN: ReadonlySet<JobAction> = new Set([
  "cancel",
  "regenerate",
  "post",
  "discard",
]);

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
    if (place !== undefined && !isOwnMessage(job, place, action)) {
      return { ok: false, reason: "not_this_job" };
    }
    if (userId === job.origin.userId) return ALLOWED;
    if (STARTER_OR_ADMIN.has(action)) {
      const user = await this.#lookups.userNow(userId);
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
      this.#lookups.isMemberNow(channelId, userId),
      bot === undefined ? Promise.resolve(undefined) : this.#lookups.isMemberNow(channelId, bot),
    ]);
    if (userIn === false) return "user_not_in";
    if (botIn === false) return "bot_not_in";
    if (userIn === undefined || botIn === undefined) return "unknown";
    return undefined;
  }

  /**
   * May `userId` use `file`: have notes made of a recording, or a DOCX as their template?
   * Their own upload, or a file shared in a conversation they are in now. `file` must be as
   * `files.info` describes it (uploader, shares), never the copy a payload carries: a
   * payload names a file id, and anyone can name any id.
   */
  file(file: SlackFile, userId: string): Promise<boolean> {
    if (file.user === userId) return Promise.resolve(true);
    return anyTrue(sharedIn(file).map((channelId) => this.#lookups.isMemberNow(channelId, userId)));
  }

  async #isNonGuestMember(channelId: string, userId: string): Promise<boolean> {
    const [user, member] = await Promise.all([
      this.#lookups.userNow(userId),
      this.#lookups.isMemberNow(channelId, userId),
    ]);
    return user.known && !user.isGuest && member === true;
  }
}

/**
 * The click is on the job's status message. Just after the message is posted, before its
 * ts is saved with the job, a message in the job's own thread is taken for it (only this
 * app's messages carry its buttons, so nothing else there can). A note waiting for its
 * review is acted on from that review's first message, in the reviewer's direct message,
 * and from no other (an earlier review's, replaced, included); Post and Discard from
 * nowhere else, whatever the job's stage.
 */
function isOwnMessage(job: Job, place: ClickPlace, action: JobAction): boolean {
  const { review } = job;
  const onReview = review !== undefined && place.channelId === review.channelId;
  // Post and Discard exist only on a review's message: from anywhere else they are forged.
  if (action === "post" || action === "discard") return onReview && place.messageTs === review.ts;
  if (job.stage === "reviewing" && onReview) return place.messageTs === review.ts;
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

/** True as soon as one check says true (the others need not be waited for); else false. */
function anyTrue(checks: Promise<boolean | undefined>[]): Promise<boolean> {
  return new Promise((resolve) => {
    let left = checks.length;
    if (left === 0) resolve(false);
    for (const check of checks) {
      void check.then(
        (member) => {
          if (member === true) resolve(true);
          else if (--left === 0) resolve(false);
        },
        () => {
          if (--left === 0) resolve(false);
        },
      );
    }
  });
}
