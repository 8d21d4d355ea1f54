import { type Locale, t } from "../messages/catalog.ts";
import { clampText } from "../text/index.ts";
import { section } from "./block-kit.ts";
import { asMrkdwn, asPlain } from "./job-phrases.ts";
import type { MessageContent } from "./message-content.ts";

const MAX_FILENAME_CHARS = 200;

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
