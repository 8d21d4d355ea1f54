import { type StartRefusal, SUPPORTED_AUDIO_FORMATS } from "../../recordings/index.ts";
import { type Locale, t } from "../messages/catalog.ts";
import { clampText } from "../text/clamp-text.ts";
import { section } from "./block-kit.ts";
import { asMrkdwn, asPlain } from "./job-phrases.ts";
import type { MessageContent } from "./message-content.ts";

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
  const lines = (safe: (s: string) => string) => [
    ...listed.map((notice) => noticeSentence(notice, locale, safe)),
    ...(more > 0 ? [t(locale, "refusal.more", { count: more })] : []),
  ];
  return { text: lines(asPlain).join("\n"), blocks: [section(lines(asMrkdwn).join("\n"))] };
}

function noticeSentence(notice: FileNotice, locale: Locale, safe: (s: string) => string) {
  const name = notice.name === undefined ? undefined : clampText(notice.name, MAX_FILENAME_CHARS);
  const file = name === undefined ? t(locale, "refusal.unnamed") : safe(name);
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
  const file = (safe: (s: string) => string) =>
    name === undefined ? t(locale, "refusal.unnamed") : safe(clampText(name, MAX_FILENAME_CHARS));
  return {
    text: t(locale, `store.${kind}`, { file: file(asPlain) }),
    blocks: [section(t(locale, `store.${kind}`, { file: file(asMrkdwn) }))],
  };
}

/** The four ways in, said to someone who mentions the bot where there is no recording. */
export function buildUsage(locale: Locale): MessageContent {
  const ways = (["usage.upload", "usage.mention", "usage.shortcut", "usage.command"] as const).map(
    (key) => `• ${asMrkdwn(t(locale, key))}`,
  );
  const intro = t(locale, "usage.intro");
  return { text: intro, blocks: [section([asMrkdwn(intro), ...ways].join("\n"))] };
}
