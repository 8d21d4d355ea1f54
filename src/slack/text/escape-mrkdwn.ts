import { defuseBareBroadcasts, stripUnsafeChars } from "./neutralize-mentions.ts";

/** After this, no `<…>` in the text can become a link, a mention or a broadcast. */
export function escapeMrkdwn(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/**
 * Also defuses bare `@here`-style broadcasts, which Slack links when `link_names` is on. Mrkdwn
 * decodes only `&amp;`, `&lt;` and `&gt;`, so once every `&` is escaped `&#60;!here&#62;` stays
 * inert.
 */
export function safeMrkdwn(text: string): string {
  return defuseBareBroadcasts(escapeMrkdwn(stripUnsafeChars(text)));
}
