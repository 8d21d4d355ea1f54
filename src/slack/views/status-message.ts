import type { Button, KnownBlock, MessageMetadata } from "@slack/types";
import { isActive, type Job, type JobIn } from "../../jobs/index.ts";
import { optional } from "../../util/optional.ts";
import { ACTIONS, METADATA_EVENT_TYPE } from "../ids.ts";
import { type Locale, t } from "../messages/catalog.ts";
import { clampText } from "../text/clamp-text.ts";
import { isDirectMessage } from "../text/direct-message.ts";
import { formatDuration } from "../text/format-duration.ts";
import { actions, button, confirmedButton, context, section } from "./block-kit.ts";
import {
  asMrkdwn,
  asPlain,
  failureNamesFile,
  failureSentence,
  percentOf,
  progressBar,
  speakerLabel,
  stageSentence,
} from "./job-phrases.ts";
import type { MessageContent } from "./message-content.ts";

/** Speakers listed in the status message; the modal shows them all. */
const LISTED_SPEAKERS = 10;
const STATUS_ACTIONS_BLOCK = "job_status_actions";

export interface StatusMessageOptions {
  locale: Locale;
  now: number;
  speakerCount?: number;
}

/** The job's one status message, edited as it moves on, with the buttons that apply now. */
export function buildStatusMessage(job: Job, options: StatusMessageOptions): MessageContent {
  const { locale, now, speakerCount } = options;
  const blocks: KnownBlock[] = [section(statusBody(job, locale, speakerCount))];
  blocks.push(context(elapsedPhrase(job, locale, now)));
  const buttons = statusButtons(job, locale);
  if (buttons.length > 0) blocks.push(actions(STATUS_ACTIONS_BLOCK, buttons));
  return { text: fallbackText(job, locale, speakerCount), blocks };
}

/** With the file id, so a thread read tells which upload it answers once the record is gone. */
export function buildStatusMetadata(jobId: string, fileId?: string): MessageMetadata {
  const file = optional("file_id", fileId);
  return {
    event_type: METADATA_EVENT_TYPE,
    event_payload: { job_id: jobId, kind: "status", ...file },
  };
}

export function buildLostStatus(locale: Locale): MessageContent {
  const text = t(locale, "status.lost");
  return { text, blocks: [section(text)] };
}

function statusBody(job: Job, locale: Locale, speakerCount?: number): string {
  const lines = [stageSentence(job, locale, asMrkdwn, speakerCount)];
  if (job.stage === "transcribing") {
    const progress = job.audio.progress;
    const fraction = progress?.fraction;
    if (typeof fraction === "number" && percentOf(fraction) !== undefined) {
      lines.push(`\`${progressBar(fraction)}\``);
    } else if (progress != null && progress.label.trim() !== "") {
      lines.push(asMrkdwn(clampText(progress.label, 100)));
    }
  }
  if (job.stage === "naming") lines.push(...speakerLines(job, locale));
  if (isActive(job) && job.waiting !== undefined) {
    lines.push(t(locale, `status.waiting.${job.waiting}`));
  }
  if (job.stage === "done") lines.push(...canvasLines(job, locale));
  if (job.stage === "failed") {
    // A failure that names the file is already the stage sentence.
    if (!failureNamesFile(job.failure)) {
      lines.push(failureSentence(job.failure, locale, asMrkdwn, job.source.filename));
    }
    if (job.retryable) lines.push(t(locale, "status.retry_hint"));
  }
  return lines.join("\n");
}

/** The canvas's link once the channel (in a DM: the person) may read it, or why there is none. */
function canvasLines(job: Job, locale: Locale): string[] {
  const url = job.canvas?.url;
  if (url !== undefined && /^https?:\/\/[^\s|<>]+$/.test(url)) {
    const key = isDirectMessage(job.origin.channelId) ? "status.canvas_dm" : "status.canvas";
    return [t(locale, key, { url })];
  }
  if (job.canvasRefused !== undefined) return [t(locale, `status.no_canvas.${job.canvasRefused}`)];
  return [];
}

function speakerLines(job: JobIn<"naming">, locale: Locale): string[] {
  const lines = job.speakers.slice(0, LISTED_SPEAKERS).map((speaker) => {
    const label = `*${asMrkdwn(speakerLabel(speaker.speakerId, locale))}*`;
    const percent = Math.round(speaker.share * 100);
    return `• ${t(locale, "speakers.share", { speaker: label, percent })}`;
  });
  const more = job.speakers.length - LISTED_SPEAKERS;
  if (more > 0) lines.push(t(locale, "status.naming.more", { count: more }));
  return lines;
}

function fallbackText(job: Job, locale: Locale, speakerCount?: number): string {
  const sentence = stageSentence(job, locale, asPlain, speakerCount);
  if (job.stage !== "failed" || failureNamesFile(job.failure)) return sentence;
  return `${sentence} ${failureSentence(job.failure, locale, asPlain, job.source.filename)}`;
}

function elapsedPhrase(job: Job, locale: Locale, now: number): string {
  if (isActive(job)) {
    return t(locale, "status.elapsed", { time: formatDuration((now - job.createdAt) / 1000) });
  }
  return t(locale, "status.took", {
    time: formatDuration((job.finishedAt - job.createdAt) / 1000),
  });
}

function statusButtons(job: Job, locale: Locale): Button[] {
  const buttons: Button[] = [];
  if (job.stage === "naming") {
    buttons.push(
      button(ACTIONS.nameSpeakers, t(locale, "button.name_speakers"), job.id, "primary"),
      button(ACTIONS.skipNaming, t(locale, "button.skip"), job.id),
    );
  }
  if (job.stage === "failed" && job.retryable) {
    buttons.push(button(ACTIONS.retry, t(locale, "button.retry"), job.id, "primary"));
  }
  if (job.stage === "done") {
    buttons.push(button(ACTIONS.regenerate, t(locale, "button.regenerate"), job.id));
  }
  // A note waiting for its review is its reviewer's to post or discard, in their DM.
  if (isActive(job) && job.stage !== "reviewing") {
    buttons.push(confirmedButton(ACTIONS.cancel, "cancel", job.id, locale));
  }
  return buttons;
}
