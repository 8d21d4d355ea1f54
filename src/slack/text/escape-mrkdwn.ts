import { defuseBareBroadcasts, stripUnsafeChars } from "./neutralize-mentions.ts";

/**
 * Escapes the three characters Slack's mrkdwn treats as control characters. After this,
 * no `<…>` sequence in the text can become a link, a mention or a broadcast.
 */
export function escapeMrkdwn(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/**
 * Text from a recording, the Note Service or a person, made safe for a mrkdwn field:
 * control characters and bidi overrides stripped, escaped (so `<!here>` shows as typed,
 * inert), and bare `@here`-style broadcasts defused, as Slack links those when
 * `link_names` is on. Character references need nothing more: mrkdwn decodes only `&amp;`,
 * `&lt;` and `&gt;`, and after escaping every `&` is `&amp;`, so `&#60;!here&#62;` is
 * shown as typed.
 */
export function safeMrkdwn(text: string): string {
  return defuseBareBroadcasts(escapeMrkdwn(stripUnsafeChars(text)));
}
