import type { Button, KnownBlock, MessageMetadata } from "@slack/types";
import type { Job } from "../../jobs/index.ts";
import { ACTIONS, METADATA_EVENT_TYPE } from "../ids.ts";
import { type Locale, t } from "../messages/catalog.ts";
import { clampText } from "../text/clamp-text.ts";
import { actions, button, confirmedButton, context, section } from "./block-kit.ts";
import { asMrkdwn, asPlain, type Safe, userRef } from "./job-phrases.ts";
import { SLACK_LIMITS } from "./limits.ts";
import type { MessageContent, TaggedMessageContent } from "./message-content.ts";
import { safeReply } from "./notice-modal.ts";

/** Where a review stands, as its first message in the reviewer's DM says it. */
export type ReviewMessageState =
  | { state: "coming" | "ready" | "expired" | "replaced" }
  | { state: "posted" | "discarded"; by: string };

const REVIEW_ACTIONS_BLOCK = "review_actions";
const CHANNEL_ID = /^[CG][A-Z0-9]{2,}$/;
const MAX_FILENAME_CHARS = 200;

/** The note goes in this message's thread; its metadata lets a run after a crash find it. */
export function buildReviewMessage(
  job: Job,
  at: ReviewMessageState,
  options: { locale: Locale; expiresAt?: number },
): TaggedMessageContent {
  const { locale } = options;
  const text = reviewSentence(job, at, locale, asMrkdwn);
  const blocks: KnownBlock[] = [section(text)];
  if (at.state === "ready") {
    if (options.expiresAt !== undefined) {
      blocks.push(context(t(locale, "review.expires", { date: slackDate(options.expiresAt) })));
    }
    blocks.push(actions(REVIEW_ACTIONS_BLOCK, reviewButtons(job.id, locale)));
  }
  return {
    text: clampText(reviewSentence(job, at, locale, asPlain), SLACK_LIMITS.sectionText),
    blocks,
    metadata: reviewMetadata(job, "review"),
  };
}

export function buildReviewReminder(job: Job, locale: Locale): TaggedMessageContent {
  const channel = channelOf(job, locale);
  const reply = safeReply((safe) =>
    t(locale, "review.reminder", { file: fileOf(job, safe), channel }),
  );
  return { ...reply, metadata: reviewMetadata(job, "review_reminder") };
}

export function reviewMetadata(job: Job, kind: "review" | "review_reminder"): MessageMetadata {
  const delivery = "delivery" in job ? job.delivery : 1;
  return { event_type: METADATA_EVENT_TYPE, event_payload: { job_id: job.id, kind, delivery } };
}

export function reviewOutcome(job: Job, at: ReviewMessageState, locale: Locale): MessageContent {
  const { text, blocks } = buildReviewMessage(job, at, { locale });
  return { text, blocks };
}

function reviewSentence(job: Job, at: ReviewMessageState, locale: Locale, safe: Safe): string {
  const file = fileOf(job, safe);
  const channel = channelOf(job, locale);
  switch (at.state) {
    case "coming":
    case "ready":
      return t(locale, `review.${at.state}`, { file, channel });
    case "posted":
    case "discarded":
      return t(locale, `review.${at.state}`, { user: userRef(at.by, safe), channel });
    case "expired":
      return t(locale, "review.expired", { channel });
    case "replaced":
      return t(locale, "review.replaced");
  }
}

function reviewButtons(jobId: string, locale: Locale): Button[] {
  return [
    button(ACTIONS.postReview, t(locale, "button.post_to_thread"), jobId, "primary"),
    button(ACTIONS.regenerate, t(locale, "button.change_names"), jobId),
    confirmedButton(ACTIONS.discardReview, "discard", jobId, locale),
  ];
}

function fileOf(job: Job, safe: Safe): string {
  return `*${safe(clampText(job.source.filename, MAX_FILENAME_CHARS))}*`;
}

/** A conversation Slack would not link is named in words. */
function channelOf(job: Job, locale: Locale): string {
  const { channelId } = job.origin;
  return CHANNEL_ID.test(channelId) ? `<#${channelId}>` : t(locale, "review.conversation");
}

/**
 * Shown in each reader's time zone (https://docs.slack.dev/messaging/formatting-message-text), with
 * a UTC fallback.
 */
function slackDate(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  const fallback = new Date(seconds * 1000).toISOString().slice(0, 10);
  return `<!date^${seconds}^{date_long_pretty}|${fallback}>`;
}
