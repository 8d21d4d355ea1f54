import type { Job } from "../jobs/index.ts";
import type { SlackFile } from "./directory/recording-file.ts";
import type { UserInfo } from "./directory/slack-directory.ts";
import { isDirectMessage } from "./text/direct-message.ts";

/**
 * Who may do what, from {@link PERMISSION_TABLE} (a test keeps SECURITY.md's copy equal). Roles and
 * membership are asked of Slack at the moment, never a payload or a cache; unknown means no.
 */

export type Role = "starter" | "admin" | "non_guest" | "anyone";

/** Where the person must be at the moment of the action, whatever their role. */
export type Place = "job_channel" | "channel" | "destination" | "file_share";

export interface Rule {
  readonly may: readonly Role[];
  readonly mustBeIn: Place;
}

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

export type JobAction = {
  [A in Action]: (typeof PERMISSION_TABLE)[A]["mustBeIn"] extends "job_channel" ? A : never;
}[Action];

/** Who could have done it (the refusal sentence says so), or why no one could tell. */
export type Refusal =
  | "starter_or_admin"
  | "starter_or_member"
  | "channel_member"
  | "cannot_tell"
  | "not_this_job"; // the button was not on the job's own message (forged or copied)

export type Decision = { ok: true } | { ok: false; reason: Refusal };

export type DestinationProblem = "bot_not_in" | "user_not_in" | "unknown";

/** Undefined membership, or an unknown user, means Slack could not tell: the answer is no. */
export interface PermissionLookups {
  userNow(userId: string): Promise<UserInfo>;
  isMemberNow(channelId: string, userId: string): Promise<boolean | undefined>;
  botIsMemberNow(channelId: string): Promise<boolean | undefined>;
}

/** Where a click came from, as the interaction payload says. */
export interface ClickPlace {
  channelId: string | undefined;
  messageTs: string | undefined;
  threadTs?: string | undefined;
}

interface Asker {
  userId: string;
  channelId?: string;
  starterId?: string;
  file?: SlackFile;
}

type Answer = boolean | undefined;

const ALLOWED: Decision = { ok: true };

export class Permissions {
  readonly #lookups: PermissionLookups;

  constructor(lookups: PermissionLookups) {
    this.#lookups = lookups;
  }

  /**
   * A click (`place`) must come from the job's own message; a command's channel is the caller's to
   * check.
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

  async channelSettings(channelId: string, userId: string): Promise<Decision> {
    const rule = PERMISSION_TABLE.settings;
    return decisionOf(rule, await this.#judge(rule, { userId, channelId }));
  }

  /** The notes go only where both the person and the bot are. */
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

  /** `file` must come from `files.info`, never a payload: anyone can name any file id. */
  async file(file: SlackFile, userId: string): Promise<boolean> {
    return (await this.#judge(PERMISSION_TABLE.file, { userId, file })) === true;
  }

  async #judge(rule: Rule, asker: Asker): Promise<Answer> {
    const [role, present] = await Promise.all([
      this.#holds(rule.may, asker),
      this.#isIn(rule.mustBeIn, asker),
    ]);
    if (role === false || present === false) return false;
    return role === true && present === true ? true : undefined;
  }

  async #holds(may: readonly Role[], asker: Asker): Promise<Answer> {
    if (may.includes("anyone")) return true;
    if (may.includes("starter") && asker.userId === asker.starterId) return true;
    if (!may.includes("admin") && !may.includes("non_guest")) return false;
    const user = await this.#lookups.userNow(asker.userId);
    if (!user.known) return undefined;
    return (may.includes("admin") && user.isAdmin) || (may.includes("non_guest") && !user.isGuest);
  }

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

function decisionOf(rule: Rule, answer: Answer): Decision {
  if (answer === true) return ALLOWED;
  return { ok: false, reason: answer === undefined ? "cannot_tell" : whoCould(rule) };
}

function whoCould(rule: Rule): Refusal {
  if (rule.may.includes("admin")) return "starter_or_admin";
  return rule.may.includes("starter") ? "starter_or_member" : "channel_member";
}

/**
 * The click is on the job's status message (before its ts is saved, any message of the job's
 * thread: only this app's messages carry its buttons), or, for a note in review and for Post
 * and Discard always, on the current review's message.
 */
function isOwnMessage(job: Job, place: ClickPlace, action: JobAction): boolean {
  const { review } = job;
  const onReview = review !== undefined && place.channelId === review.channelId;
  if (action === "post" || action === "discard") return onReview && place.messageTs === review.ts;
  if (job.stage === "reviewing" && onReview) return place.messageTs === review.ts;
  if (place.channelId !== job.origin.channelId || place.messageTs === undefined) return false;
  if (job.statusTs !== undefined) return place.messageTs === job.statusTs;
  return place.threadTs === job.origin.threadTs;
}

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

/** True as soon as one check says true; else false. */
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
