import type { Job } from "../jobs/index.ts";
import type { SlackFile } from "./recording-file.ts";
import type { UserInfo } from "./slack-directory.ts";
import { isDirectMessage } from "./text/direct-message.ts";

/**
 * Who may do what. Every listener asks this module, and every decision is taken from
 * {@link PERMISSION_TABLE}: SECURITY.md's "Who may do what" is the same table, and
 * test/slack/permission-table.test.ts fails when the two differ. Roles and membership come
 * from Slack as they are at the moment of the decision (`users.info`,
 * `conversations.members`, never a cached answer), never from what a payload claims; when
 * Slack cannot tell (an error, no answer within `DECISION_BUDGET_MS`), the answer is no.
 */

/**
 * Who can be enough: `starter`, the person who started the job; `admin`, a workspace admin
 * or owner; `non_guest`, a member of the workspace who is not a guest; `anyone`.
 */
export type Role = "starter" | "admin" | "non_guest" | "anyone";

/**
 * Where the person must be at the moment of the action, whatever their role:
 * `job_channel`, the job's channel (not asked of the starter when it is their direct message
 * with the bot, which no one else can join); `channel`, the channel whose settings they are;
 * `destination`, the conversation the notes are to go to (where the bot must be too);
 * `file_share`, a conversation the file is shared in (not asked of the person who uploaded it).
 */
export type Place = "job_channel" | "channel" | "destination" | "file_share";

export interface Rule {
  readonly may: readonly Role[];
  readonly mustBeIn: Place;
}

/** Every action and who may do it: the one table the code decides from. */
export const PERMISSION_TABLE = {
  cancel: { may: ["starter", "admin"], mustBeIn: "job_channel" },
  regenerate: { may: ["starter", "admin"], mustBeIn: "job_channel" },
  post: { may: ["starter", "admin"], mustBeIn: "job_channel" },
  discard: { may: ["starter", "admin"], mustBeIn: "job_channel" },
  names: { may: ["starter", "non_guest"], mustBeIn: "job_channel" },
  skip: { may: ["starter", "non_guest"], mustBeIn: "job_channel" },
  retry: { may: ["starter", "non_guest"], mustBeIn: "job_channel" },
  settings: { may: ["non_guest"], mustBeIn: "channel" },
  destination: { may: ["anyone"], mustBeIn: "destination" },
  file: { may: ["anyone"], mustBeIn: "file_share" },
} as const satisfies Record<string, Rule>;

export type Action = keyof typeof PERMISSION_TABLE;

/** What a person can do to a job from its status message, its review or a command. */
export type JobAction = {
  [A in Action]: (typeof PERMISSION_TABLE)[A]["mustBeIn"] extends "job_channel" ? A : never;
}[Action];

/** Who could have done it (the refusal sentence says so), or why no one could tell. */
export type Refusal =
  | "starter_or_admin"
  | "starter_or_member"
  | "channel_member"
  /** Slack could not tell the person's role or membership in time: no, until it can. */
  | "cannot_tell"
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
  /** Whether the bot is in the conversation now (one `conversations.info`, not a listing). */
  botIsMemberNow(channelId: string): Promise<boolean | undefined>;
}

/** Where a click came from, as the interaction payload says. */
export interface ClickPlace {
  channelId: string | undefined;
  messageTs: string | undefined;
  /** The thread the clicked message is in. */
  threadTs?: string | undefined;
}

/** Who asks, and about what: the conversation (and the job's starter, or the file) at stake. */
interface Asker {
  userId: string;
  channelId?: string;
  starterId?: string;
  file?: SlackFile;
}

/** Yes, no, or Slack could not tell. */
type Answer = boolean | undefined;

const ALLOWED: Decision = { ok: true };

/** The permission rules of {@link PERMISSION_TABLE}, over Slack look-ups. */
export class Permissions {
  readonly #lookups: PermissionLookups;

  constructor(lookups: PermissionLookups) {
    this.#lookups = lookups;
  }

  /**
   * May `userId` do `action` to `job` now? A click (`place`) must come from the job's own
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
    const rule = PERMISSION_TABLE[action];
    const { channelId, userId: starterId } = job.origin;
    return decisionOf(rule, await this.#judge(rule, { userId, channelId, starterId }));
  }

  /** May `userId` read and change the channel's settings? */
  async channelSettings(channelId: string, userId: string): Promise<Decision> {
    const rule = PERMISSION_TABLE.settings;
    return decisionOf(rule, await this.#judge(rule, { userId, channelId }));
  }

  /** Can the notes go to `channelId` for `userId`? They must be in it, and the bot too. */
  async destination(channelId: string, userId: string): Promise<DestinationProblem | undefined> {
    const [userIn, botIn] = await Promise.all([
      this.#judge(PERMISSION_TABLE.destination, { userId, channelId }),
      this.#botIsIn(channelId),
    ]);
    if (userIn === false) return "user_not_in";
    if (botIn === false) return "bot_not_in";
    if (userIn === undefined || botIn === undefined) return "unknown";
    return undefined;
  }

  /**
   * May `userId` use `file`: have notes made of a recording, or a DOCX as their template?
   * `file` must be as `files.info` describes it (uploader, shares), never the copy a
   * payload carries: a payload names a file id, and anyone can name any id.
   */
  async file(file: SlackFile, userId: string): Promise<boolean> {
    return (await this.#judge(PERMISSION_TABLE.file, { userId, file })) === true;
  }

  /** The rule's answer: one of its roles, and in its place now (both asked at once). */
  async #judge(rule: Rule, asker: Asker): Promise<Answer> {
    const [role, present] = await Promise.all([
      this.#holds(rule.may, asker),
      this.#isIn(rule.mustBeIn, asker),
    ]);
    if (role === false || present === false) return false;
    return role === true && present === true ? true : undefined;
  }

  /** Whether the asker has one of the roles; the starter needs no look-up. */
  async #holds(may: readonly Role[], asker: Asker): Promise<Answer> {
    if (may.includes("anyone")) return true;
    if (may.includes("starter") && asker.userId === asker.starterId) return true;
    if (!may.includes("admin") && !may.includes("non_guest")) return false;
    const user = await this.#lookups.userNow(asker.userId);
    if (!user.known) return undefined;
    return (may.includes("admin") && user.isAdmin) || (may.includes("non_guest") && !user.isGuest);
  }

  /** Whether the asker is where the rule wants them, as Slack has it now. */
  async #isIn(place: Place, asker: Asker): Promise<Answer> {
    const { userId, channelId, file } = asker;
    if (place === "file_share") {
      if (file === undefined) return false;
      if (file.user === userId) return true;
      return anyTrue(sharedIn(file).map((id) => this.#lookups.isMemberNow(id, userId)));
    }
    if (channelId === undefined) return false;
    // The bot's direct message with the starter: only they are in it, and no one can leave it.
    if (place === "job_channel" && userId === asker.starterId && isDirectMessage(channelId)) {
      return true;
    }
    return this.#lookups.isMemberNow(channelId, userId).catch(() => undefined);
  }

  async #botIsIn(channelId: string): Promise<Answer> {
    return this.#lookups.botIsMemberNow(channelId).catch(() => undefined);
  }
}

/** Allowed, or refused saying who could (or that Slack could not tell). */
function decisionOf(rule: Rule, answer: Answer): Decision {
  if (answer === true) return ALLOWED;
  return { ok: false, reason: answer === undefined ? "cannot_tell" : whoCould(rule) };
}

function whoCould(rule: Rule): Refusal {
  if (rule.may.includes("admin")) return "starter_or_admin";
  return rule.may.includes("starter") ? "starter_or_member" : "channel_member";
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
