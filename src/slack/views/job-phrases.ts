import type { Failure, Job } from "../../jobs/index.ts";
import { CONTENT_REFUSALS, SUPPORTED_AUDIO_FORMATS } from "../../recordings/index.ts";
import { type Locale, t } from "../messages/catalog.ts";
import { clampText } from "../text/clamp-text.ts";
import { neutralizeMentions, safeMrkdwn } from "../text/neutralize-mentions.ts";

/**
 * `asMrkdwn` escapes for mrkdwn; `asPlain` only neutralises mentions, for fields where an escape
 * would show as `&lt;`.
 */
export type Safe = (text: string) => string;
export const asMrkdwn: Safe = safeMrkdwn;
export const asPlain: Safe = neutralizeMentions;

const MAX_FILENAME_CHARS = 200;
const MAX_DETAIL_CHARS = 300;
const BAR_CELLS = 10;
const USER_ID = /^[UW][A-Z0-9]+$/;

export function stageSentence(job: Job, locale: Locale, safe: Safe, speakerCount?: number) {
  const file = safe(clampText(job.source.filename, MAX_FILENAME_CHARS));
  switch (job.stage) {
    case "queued":
      if (job.ahead === undefined) return t(locale, "status.queued", { file });
      return job.ahead === 1
        ? t(locale, "status.queued_waiting.one", { file })
        : t(locale, "status.queued_waiting.other", { file, count: job.ahead });
    case "downloading":
      return t(locale, "status.downloading", { file });
    case "preparing":
    case "transcribing": {
      const percent = progressPercent(job);
      return percent === undefined
        ? t(locale, `status.${job.stage}`, { file })
        : t(locale, `status.${job.stage}_percent`, { file, percent });
    }
    case "naming": {
      const count = speakerCount ?? job.speakers.length;
      return count === 1
        ? t(locale, "status.naming.one")
        : t(locale, "status.naming.other", { count });
    }
    case "writing":
    case "delivering":
    case "done":
      return t(locale, `status.${job.stage}`);
    case "failed":
      return failureNamesFile(job.failure)
        ? failureSentence(job.failure, locale, safe, job.source.filename)
        : t(locale, "status.failed", { file });
    case "canceled":
      return t(locale, "status.canceled", { user: userRef(job.canceledBy, safe) });
    case "reviewing":
      return t(locale, "status.reviewing", { user: userRef(job.origin.userId, safe) });
    case "discarded":
      return job.discardedBy === undefined
        ? t(locale, "status.expired")
        : t(locale, "status.discarded", { user: userRef(job.discardedBy, safe) });
  }
}

/**
 * How an ended job that made no note ended, in the thread's words; a Workflow step fails with it.
 */
export function endingSentence(job: Job, locale: Locale): string {
  return job.stage === "failed"
    ? failureSentence(job.failure, locale, asPlain, job.source.filename)
    : stageSentence(job, locale, asPlain);
}

export function stageShort(job: Job, locale: Locale, safe: Safe): string {
  switch (job.stage) {
    case "queued":
      return job.ahead === undefined
        ? t(locale, "stage.queued")
        : t(locale, "stage.queued_waiting", { count: job.ahead });
    case "preparing":
    case "transcribing": {
      const percent = progressPercent(job);
      return percent === undefined
        ? t(locale, `stage.${job.stage}`)
        : t(locale, `stage.${job.stage}_percent`, { percent });
    }
    case "failed":
      return t(locale, "stage.failed", {
        reason: failureSentence(job.failure, locale, safe, job.source.filename),
      });
    default:
      return t(locale, `stage.${job.stage}`);
  }
}

/** Codes whose detail is a number (minutes, megabytes): any other detail reads as none. */
const NUMBER_DETAIL = new Set<Failure["code"]>(["timeout", "dialog_too_large", "docx_too_large"]);

/** Failures about the file itself (refused for what its bytes are): their sentence names it. */
const FILE_FAILURES = new Set<Failure["code"]>(CONTENT_REFUSALS);

/** Such a sentence stands alone in the thread, without "Could not make notes from …" before it. */
export function failureNamesFile(failure: Failure): boolean {
  return FILE_FAILURES.has(failure.code);
}

/** The service's own message where the code has one; `filename` as the person sees it. */
export function failureSentence(
  failure: Failure,
  locale: Locale,
  safe: Safe,
  filename: string,
): string {
  const detail = failure.detail?.trim() ?? "";
  const file = safe(clampText(filename, MAX_FILENAME_CHARS));
  switch (failure.code) {
    case "prepare_failed":
      return detail === "no_ffmpeg"
        ? t(locale, "failure.prepare_failed.no_ffmpeg", { file })
        : t(locale, "failure.prepare_failed", { file });
    case "not_audio":
    case "no_sound":
    case "frame_too_large":
    case "prepare_too_slow":
    case "prepared_too_large":
      return t(locale, `failure.${failure.code}`, { file });
    case "too_long":
      // `detail` is MAX_RECORDING_HOURS when the job failed.
      return /^\d+$/.test(detail)
        ? t(locale, "failure.too_long", { file, hours: detail })
        : t(locale, "failure.too_long.plain", { file });
    case "unsupported_container": {
      const formats = SUPPORTED_AUDIO_FORMATS.join(", ");
      return detail === ""
        ? t(locale, "failure.unsupported_container.plain", { file, formats })
        : t(locale, "failure.unsupported_container", {
            file,
            format: safe(clampText(detail, MAX_DETAIL_CHARS)),
            formats,
          });
    }
    case "task_failed":
    case "refused":
    case "invalid_input":
    case "timeout":
    case "dialog_too_large":
    case "docx_too_large": {
      if (failure.code === "invalid_input" && detail === "template") {
        return t(locale, "failure.invalid_input.template");
      }
      if (NUMBER_DETAIL.has(failure.code) && !/^\d+$/.test(detail)) {
        return t(locale, `failure.${failure.code}.plain`);
      }
      return detail === ""
        ? t(locale, `failure.${failure.code}.plain`)
        : t(locale, `failure.${failure.code}`, {
            detail: safe(clampText(detail, MAX_DETAIL_CHARS)),
          });
    }
    default:
      return t(locale, `failure.${failure.code}`);
  }
}

export function progressBar(fraction: number): string {
  const clamped = Math.min(1, Math.max(0, fraction));
  const filled = Math.round(clamped * BAR_CELLS);
  return `${"▓".repeat(filled)}${"░".repeat(BAR_CELLS - filled)} ${Math.round(clamped * 100)}%`;
}

/** How far the stages that report progress have come, in percent. */
function progressPercent(job: Job): number | undefined {
  if (job.stage === "preparing") return percentOf(job.fraction);
  return job.stage === "transcribing" ? percentOf(job.audio.progress?.fraction) : undefined;
}

export function percentOf(fraction: number | null | undefined): number | undefined {
  if (fraction === null || fraction === undefined || !Number.isFinite(fraction)) return undefined;
  return Math.round(Math.min(1, Math.max(0, fraction)) * 100);
}

/** "Speaker 1" for the service's `speaker_1`; any other id (a hinted name) as it is. */
export function speakerLabel(speakerId: string, locale: Locale): string {
  const number = /^speaker[ _-]?(\d+)$/i.exec(speakerId)?.[1];
  return number === undefined ? speakerId : t(locale, "speakers.label", { number });
}

/** A user id as a mention: the status message is edited, not posted, and edits notify no one. */
export function userRef(user: string, safe: Safe): string {
  return USER_ID.test(user) ? `<@${user}>` : safe(user);
}
