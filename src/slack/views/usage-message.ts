import { type Locale, t } from "../messages/catalog.ts";
import { section } from "./block-kit.ts";
import { asMrkdwn } from "./job-phrases.ts";
import type { MessageContent } from "./message-content.ts";

/** The four ways in, said to someone who mentions the bot where there is no recording. */
export function buildUsage(locale: Locale): MessageContent {
  const ways = (["usage.upload", "usage.mention", "usage.shortcut", "usage.command"] as const).map(
    (key) => `• ${asMrkdwn(t(locale, key))}`,
  );
  const intro = t(locale, "usage.intro");
  return { text: intro, blocks: [section([asMrkdwn(intro), ...ways].join("\n"))] };
}
