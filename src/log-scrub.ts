/**
 * What no log line may hold, at any level: the app's configured secrets, and every
 * capability Slack hands it — tokens, hook URLs, trigger ids, OAuth codes and states. The
 * logger (`logger.ts`) passes each line through {@link createScrub}, and each line of
 * Slack's SDKs through {@link withoutPayload} first.
 */

export const CENSOR = "[redacted]";

/**
 * Slack's tokens by their published prefixes: bot, user and legacy (`xoxb-`, `xoxp-`,
 * `xoxa-`, `xoxs-`, `xoxr-`), rotation's access and refresh tokens (`xoxe.xoxb-…`, `xoxe-…`),
 * app-level (`xapp-`), and a Workflow step's `bot_access_token` (`xwfp-`,
 * https://docs.slack.dev/reference/events/function_executed).
 */
const SLACK_TOKEN = /\b(?:xoxe\.)?(?:xox[a-z]|xoxe|xapp|xwfp)-[A-Za-z0-9._-]*[A-Za-z0-9]/g;

/**
 * Hook URLs: each posts as the app — a `response_url` (30 minutes), an incoming webhook,
 * a workflow's trigger — on Slack's hooks host (and GovSlack's).
 */
const HOOK_URL = /\bhttps?:\/\/hooks\.slack(?:-gov)?\.[a-z.]+\/[^\s"'<>]*/gi;

/**
 * Trigger ids and OAuth codes, in the shape Slack gives both (`12345.98765.abcd2358fdea` on
 * https://docs.slack.dev/reference/methods/views.open); message timestamps and client ids
 * have two parts, never a third of hex.
 */
const DOTTED_CAPABILITY = /\b\d+\.\d+\.[0-9a-f]{8,}\b/gi;

/** A JWT: the OAuth state `@slack/oauth` signs with SLACK_STATE_SECRET. */
const JWT = /\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g;

/** A capability in a URL's query: the OAuth redirect's code and state, Socket Mode's ticket. */
const QUERY_CAPABILITY =
  /([?&](?:code|state|ticket|token|access_token|refresh_token|client_secret)=)[^&#\s"'<>]+/gi;

/** A capability as a field of JSON written into a message (an SDK's line). */
const JSON_FIELD =
  /("(?:trigger_id|response_url|bot_access_token|[a-z_]*token|client_secret)"\s*:\s*")[^"]*/gi;

/**
 * Fields of a logged object whose string value is a capability, at any depth. Not `code`
 * or `state`: errors carry a `code` worth reading; OAuth's are caught by their shapes.
 */
const SECRET_KEY = /token|secret|authorization|^trigger_id$|^response_url$/i;

function scrubText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) out = out.replaceAll(secret, CENSOR);
  return out
    .replace(JSON_FIELD, `$1${CENSOR}`)
    .replace(QUERY_CAPABILITY, `$1${CENSOR}`)
    .replace(HOOK_URL, CENSOR)
    .replace(SLACK_TOKEN, CENSOR)
    .replace(JWT, CENSOR)
    .replace(DOTTED_CAPABILITY, CENSOR);
}

function scrubValue(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === "string") return scrubText(value, secrets);
  if (Array.isArray(value)) return value.map((item) => scrubValue(item, secrets));
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [
      key,
      typeof v === "string" && SECRET_KEY.test(key) ? CENSOR : scrubValue(v, secrets),
    ]),
  );
}

/**
 * Scrubs one serialised log line: every string in it loses each secret of `secrets` (of any
 * length: a short secret is a secret too), and every capability found by its shape or its
 * field's name. Only values are touched, so the line stays the JSON it was; a line that is
 * not JSON is scrubbed as text.
 */
export function createScrub(secrets: readonly (string | undefined)[]): (line: string) => string {
  // Longest first, so that no part of a secret survives a shorter one it contains.
  const known = [...new Set(secrets)]
    .filter((s): s is string => s !== undefined && s !== "")
    .sort((a, b) => b.length - a.length);
  return (line) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      return scrubText(line, known);
    }
    return `${JSON.stringify(scrubValue(parsed, known))}\n`;
  };
}

/**
 * Lines Slack's SDKs write at debug with a whole payload after a fixed text (read in their
 * sources): the text is kept, the payload never written.
 * - @slack/socket-mode: every raw envelope received (a step's token, `response_url`s,
 *   `trigger_id`s) and every message sent back;
 * - @slack/web-api: every call's arguments (`views.open`'s `trigger_id`, the OAuth `code`)
 *   and every answer (upload URLs, Socket Mode's ticket);
 * - @slack/oauth: the authorize URL with its state;
 * - Bolt's receivers: the body of each ack.
 */
const PAYLOAD_AFTER = [
  "Received a message on the WebSocket:",
  "Unable to parse an incoming WebSocket message (will ignore):",
  "Sending a WebSocket message:",
  "http request body:",
  "http request result:",
  "Generated authorize URL:",
  "ack() call begins (body:",
  "ack() response stored (body:",
  "ack() response sent (body:",
];

/** The acknowledgement of an envelope: its type and id are kept, its answer (`data`) not. */
const ACK_DATA = /^(Calling ack\(\) - .*?), data: [\s\S]*$/;

/** A line of Slack's SDKs as it may be logged: without the payload it carries, if any. */
export function withoutPayload(message: string): string {
  const marker = PAYLOAD_AFTER.find((m) => message.startsWith(m));
  if (marker !== undefined) return `${marker} (not logged)`;
  return message.replace(ACK_DATA, "$1, data: (not logged)");
}
