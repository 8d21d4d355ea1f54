import { type Locale, t } from "../messages/index.ts";
import { section } from "./block-kit.ts";
import { asMrkdwn } from "./job-phrases.ts";
import type { MessageContent } from "./message-content.ts";

/**
 * How to get notes from the bot, the four ways in: an upload (where automatic notes are
 * on, or in a direct message), an @mention in a recording's thread or with its upload, the
 * message shortcut, and `/meeting-notes`. Said to someone who mentions the bot where there
 * is no recording.
 */
export function buildUsage(locale: Locale): MessageContent {
  const ways = (["usage.upload", "usage.mention", "usage.shortcut", "usage.command"] as const).map(
    (key) => `• ${asMrkdwn(t(locale, key))}`,
  );
  const intro = t(locale, "usage.intro");
  return { text: intro, blocks: [section([asMrkdwn(intro), ...ways].join("\n"))] };
}
