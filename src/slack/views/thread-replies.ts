import { type StartRefusal, SUPPORTED_AUDIO_FORMATS } from "../../recordings/index.ts";
import { type Locale, t } from "../messages/catalog.ts";
import { clampText } from "../text/clamp-text.ts";
import { section } from "./block-kit.ts";
import { asMrkdwn, type Safe } from "./job-phrases.ts";
import type { MessageContent } from "./message-content.ts";
import { safeReply } from "./notice-modal.ts";

const MAX_FILENAME_CHARS = 200;
/** The rest are counted. */
const MAX_NOTICES = 20;

export function buildRefusal(reason: StartRefusal, filename: string, locale: Locale) {
  return buildFileNotices([{ name: filename, reason }], locale);
}

/** `name` as people see it, if known. */
export interface FileNotice {
  name: string | undefined;
  reason: StartRefusal | "unreadable";
}

/** A file without a name Slack would show is "the file shared here", never its Slack id. */
export function buildFileNotices(notices: readonly FileNotice[], locale: Locale): MessageContent {
  const listed = notices.slice(0, MAX_NOTICES);
  const more = notices.length - listed.length;
  return safeReply((safe) =>
    [
      ...listed.map((notice) => noticeSentence(notice, locale, safe)),
      ...(more > 0 ? [t(locale, "refusal.more", { count: more })] : []),
    ].join("\n"),
  );
}

function fileName(name: string | undefined, locale: Locale, safe: Safe): string {
  if (name === undefined) return t(locale, "refusal.unnamed");
  return safe(clampText(name, MAX_FILENAME_CHARS));
}

function noticeSentence(notice: FileNotice, locale: Locale, safe: Safe) {
  const file = fileName(notice.name, locale, safe);
  if (notice.reason === "unsupported_format" || notice.reason === "needs_ffmpeg") {
    return t(locale, `refusal.${notice.reason}`, {
      file,
      formats: SUPPORTED_AUDIO_FORMATS.join(", "),
    });
  }
  return t(locale, `refusal.${notice.reason}`, { file });
}

/** Kept and waiting for the store, or lost; a nameless file is never shown by its Slack id. */
export function buildStoreNotice(
  kind: "upload_waiting" | "upload_lost",
  name: string | undefined,
  locale: Locale,
): MessageContent {
  return safeReply((safe) => t(locale, `store.${kind}`, { file: fileName(name, locale, safe) }));
}

/** The four ways in, said to someone who mentions the bot where there is no recording. */
export function buildUsage(locale: Locale): MessageContent {
  const ways = (["usage.upload", "usage.mention", "usage.shortcut", "usage.command"] as const).map(
    (key) => `• ${asMrkdwn(t(locale, key))}`,
  );
  const intro = t(locale, "usage.intro");
  return { text: intro, blocks: [section([asMrkdwn(intro), ...ways].join("\n"))] };
}
