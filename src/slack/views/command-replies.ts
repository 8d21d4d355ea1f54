import type { KnownBlock } from "@slack/types";
import {
  type ChannelSettingsInput,
  type CommandRefusal,
  channelSettingsSchema,
  type Job,
} from "../../jobs/index.ts";
import { SUPPORTED_AUDIO_FORMATS } from "../../recordings/index.ts";
import { type Locale, languageName, t, timeAgo } from "../messages/catalog.ts";
import type { JobAction, Refusal } from "../permissions.ts";
import { clampText } from "../text/clamp-text.ts";
import { formatDuration } from "../text/format-duration.ts";
import { context, section } from "./block-kit.ts";
import { asMrkdwn, asPlain, stageShort } from "./job-phrases.ts";
import type { MessageContent } from "./message-content.ts";
import { safeReply, sentenceReply } from "./notice-modal.ts";

const COMMAND = "/meeting-notes";
const SUBCOMMANDS = ["help", "status", "settings", "cancel"] as const;
/** One section each, within a message's 50 blocks. */
export const MAX_STATUS_JOBS = 40;
const MAX_FILENAME_CHARS = 200;

/** To explain a `wrong_stage` refusal. */
export type JobCommand = "names" | "cancel" | "retry" | "regenerate" | "review";

export interface HelpOptions {
  /** Any audio or video up to Slack's 1 GB with FFmpeg, else only the Note Service's formats. */
  canPrepare: boolean;
}

/** How to get notes, which recordings (docs/recordings.md), and every subcommand. */
export function buildHelpMessage(locale: Locale, options: HelpOptions): MessageContent {
  const formats = SUPPORTED_AUDIO_FORMATS.join(", ");
  const upload = options.canPrepare
    ? t(locale, "help.upload.prepared")
    : t(locale, "help.upload.as_is", { formats });
  const lines = [
    `*${t(locale, "help.intro")}*`,
    asMrkdwn(upload),
    `• \`${COMMAND}\` — ${t(locale, "help.open")}`,
    ...SUBCOMMANDS.map((sub) => `• \`${COMMAND} ${sub}\` — ${t(locale, `help.${sub}`)}`),
  ];
  return { text: t(locale, "help.intro"), blocks: [section(lines.join("\n"))] };
}

export function buildUnknownCommand(
  command: string,
  locale: Locale,
  options: HelpOptions,
): MessageContent {
  const help = buildHelpMessage(locale, options);
  const unknown = t(locale, "command.unknown", { command: clampText(command, 50) });
  return {
    text: asPlain(unknown),
    blocks: [section(asMrkdwn(unknown)), ...help.blocks],
  };
}

export function buildChannelStatus(
  jobs: Job[],
  options: { locale: Locale; now: number },
): MessageContent {
  const { locale, now } = options;
  const heading = t(locale, "channel_status.header");
  if (jobs.length === 0) {
    const empty = t(locale, "channel_status.empty");
    return { text: empty, blocks: [section(asMrkdwn(empty))] };
  }
  const sorted = [...jobs].sort((a, b) => b.createdAt - a.createdAt);
  const shown = sorted.slice(0, MAX_STATUS_JOBS);
  const blocks: KnownBlock[] = [section(`*${heading}*`)];
  for (const job of shown) {
    const file = `*${asMrkdwn(clampText(job.source.filename, MAX_FILENAME_CHARS))}*`;
    const when = timeAgo(locale, job.createdAt, now);
    blocks.push(section(`${file} · ${when}\n${stageShort(job, locale, asMrkdwn)}`));
  }
  if (sorted.length > shown.length) {
    blocks.push(context(t(locale, "channel_status.more", { count: sorted.length - shown.length })));
  }
  return { text: heading, blocks };
}

/** `retryInMs`: when a Regenerate in its cooldown may be tried again. */
export function buildCommandRefusal(
  reason: CommandRefusal,
  command: JobCommand,
  locale: Locale,
  retryInMs = 0,
): MessageContent {
  if (reason === "wrong_stage") return sentenceReply(t(locale, `command.wrong_stage.${command}`));
  if (reason !== "cooldown") return sentenceReply(t(locale, "command.not_found"));
  const time = formatDuration(Math.ceil(retryInMs / 1000));
  return sentenceReply(t(locale, "command.cooldown", { time }));
}

export function buildCancelReply(job: Job | undefined, locale: Locale): MessageContent {
  if (job === undefined) return sentenceReply(t(locale, "command.cancel.none"));
  const file = clampText(job.source.filename, MAX_FILENAME_CHARS);
  return safeReply((safe) => t(locale, "command.cancel.done", { file: safe(file) }));
}

export function buildPermissionRefusal(
  reason: Refusal,
  action: JobAction | "settings",
  locale: Locale,
): MessageContent {
  return sentenceReply(permissionSentence(reason, action, locale));
}

/** For a modal's field error. */
export function permissionSentence(
  reason: Refusal,
  action: JobAction | "settings",
  locale: Locale,
): string {
  if (reason === "not_this_job") return t(locale, "permission.not_this_job");
  if (reason === "cannot_tell") return t(locale, "permission.cannot_tell");
  if (reason === "channel_member" || action === "settings") {
    return t(locale, "permission.channel_member");
  }
  if (action === "cancel" || action === "regenerate" || action === "post" || action === "discard") {
    return t(locale, `permission.starter_or_admin.${action}`);
  }
  return t(locale, `permission.starter_or_member.${action}`);
}

/** Only what differs is said; nothing when nothing changed. */
export function buildSettingsAnnouncement(
  userId: string,
  given: ChannelSettingsInput,
  changed: ChannelSettingsInput,
  locale: Locale,
): MessageContent | undefined {
  const before = channelSettingsSchema.parse(given);
  const after = channelSettingsSchema.parse(changed);
  const changes: string[] = [];
  for (const key of ["canvas", "transcript", "mentions", "review"] as const) {
    if (before[key] !== after[key]) {
      changes.push(t(locale, `settings.change.${key}_${after[key] ? "on" : "off"}`));
    }
  }
  if (before.autoTranscribe !== after.autoTranscribe) {
    changes.push(t(locale, `settings.change.auto_${after.autoTranscribe ? "on" : "off"}`));
  }
  if (before.languageHint !== after.languageHint) {
    changes.push(
      after.languageHint === undefined
        ? t(locale, "settings.change.language_auto")
        : t(locale, "settings.change.language", {
            language: languageName(locale, after.languageHint),
          }),
    );
  }
  const texts = [
    ["context", "contextText"],
    ["template", "templateId"],
  ] as const;
  for (const [key, field] of texts) {
    if (before[field] !== after[field]) {
      changes.push(t(locale, `settings.change.${key}_${after[field] ? "set" : "cleared"}`));
    }
  }
  if (changes.length === 0) return undefined;
  return safeReply((safe) =>
    t(locale, "settings.announced", { user: `<@${userId}>`, changes: safe(changes.join(", ")) }),
  );
}

export function buildSettingsSaved(locale: Locale): MessageContent {
  return sentenceReply(t(locale, "settings.saved"));
}
