/**
 * What no log line may hold, at any level: the app's configured secrets, and every
 * capability Slack hands it — tokens, hook URLs, trigger ids, OAuth codes and states. The
 * logger (`logger.ts`) passes each line through {@link createScrub}, and each line of
 * Slack's SDKs through {@link withoutPayload} first.
 */

export const CENSOR = "[redacted]";

/*
 * The shapes below never take in a quote or a backslash, and need no word boundary before
 * them (in a JSON line an escape such as `\n` may stand right before), so they can run on
 * a serialised line as it is and leave it the JSON it was. Where a failed try would scan
 * on, the runs are bounded, so no line costs more than linear time.
 */

/**
 * Slack's tokens by their published prefixes: bot, user and legacy (`xoxb-`, `xoxp-`,
 * `xoxa-`, `xoxs-`, `xoxr-`), rotation's access and refresh tokens (`xoxe.xoxb-…`, `xoxe-…`),
 * app-level (`xapp-`), and a Workflow step's `bot_access_token` (`xwfp-`,
 * https://docs.slack.dev/reference/events/function_executed).
 */
const SLACK_TOKEN = /(?:xoxe\.)?(?:xox[a-z]|xoxe|xapp|xwfp)-[A-Za-z0-9._-]*[A-Za-z0-9]/g;

/**
 * Hook URLs: each posts as the app — a `response_url` (30 minutes), an incoming webhook,
 * a workflow's trigger — on Slack's hooks host (and GovSlack's).
 */
const HOOK_URL = /https?:\/\/hooks\.slack(?:-gov)?\.[a-z.]+\/[^\s"'<>\\]*/gi;

/**
 * Trigger ids and OAuth codes, in the shape Slack gives both (`12345.98765.abcd2358fdea` on
 * https://docs.slack.dev/reference/methods/views.open); message timestamps and client ids
 * have two parts, never a third of hex.
 */
const DOTTED_CAPABILITY = /(?<![\d.])\d{1,20}\.\d{1,20}\.[0-9a-f]{8,}\b/gi;

/**
 * A JWT: the OAuth state `@slack/oauth` signs with SLACK_STATE_SECRET. It starts a run of
 * base64url (or follows an escape such as `\n`), so a long run is tried once, not at each
 * `eyJ` inside it.
 */
const JWT =
  /(?<=^|[^A-Za-z0-9_-]|\\[bfnrt])eyJ[A-Za-z0-9_-]{1,2000}\.[A-Za-z0-9_-]{1,4000}\.[A-Za-z0-9_-]*/g;

/** A capability in a URL's query: the OAuth redirect's code and state, Socket Mode's ticket. */
const QUERY_CAPABILITY =
  /([?&](?:code|state|ticket|token|access_token|refresh_token|client_secret)=)[^&#\s"'<>\\]+/gi;

/** Names of fields whose value is a capability, in JSON written into a message (an SDK's). */
const FIELD_NAMES = "trigger_id|response_url|bot_access_token|[a-z_]{0,40}token|client_secret";

/** Such a field in a message's JSON, as a parsed message holds it. */
const JSON_FIELD = new RegExp(`("(?:${FIELD_NAMES})"\\s*:\\s*")[^"]*`, "gi");

/** The same in a serialised line, where the message's quotes are escaped. */
const ESCAPED_JSON_FIELD = new RegExp(
  `(\\\\"(?:${FIELD_NAMES})\\\\"\\s*:\\s*\\\\")[^"\\\\]*`,
  "gi",
);

/**
 * Fields of a logged object whose string value is a capability, at any depth. Not `code`
 * or `state`: errors carry a `code` worth reading; OAuth's are caught by their shapes.
 */
const SECRET_KEY = /token|secret|authorization|^trigger_id$|^response_url$/i;

/**
 * Such a field with a string value, in a serialised line (names bounded: an unbounded
 * name before `token` backtracks over every long string value).
 */
const SECRET_FIELD =
  /("[A-Za-z_]{0,40}(?:token|secret|authorization)[A-Za-z_]{0,40}"|"trigger_id"|"response_url"):"(?:[^"\\]|\\.)*"/gi;

/** Every shape of a capability, wherever it stands in `text`. */
function scrubShapes(text: string): string {
  return text
    .replace(QUERY_CAPABILITY, `$1${CENSOR}`)
    .replace(HOOK_URL, CENSOR)
    .replace(SLACK_TOKEN, CENSOR)
    .replace(JWT, CENSOR)
    .replace(DOTTED_CAPABILITY, CENSOR);
}

function scrubText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) out = out.replaceAll(secret, CENSOR);
  return scrubShapes(out.replace(JSON_FIELD, `$1${CENSOR}`));
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
 * field's name; the line stays the JSON it was. A line that holds none of the secrets (the
 * usual case) is scrubbed as it is, by the shapes alone; one that holds a secret is parsed
 * and only its values are touched (a short secret may also be part of a field's name or an
 * escape). A line that is not JSON is scrubbed as text.
 */
export function createScrub(secrets: readonly (string | undefined)[]): (line: string) => string {
  // Longest first, so that no part of a secret survives a shorter one it contains.
  const known = [...new Set(secrets)]
    .filter((s): s is string => s !== undefined && s !== "")
    .sort((a, b) => b.length - a.length);
  // How each appears in a serialised line: escaped as a JSON string, or twice (in a message
  // that holds JSON).
  const serialised = known.flatMap((s) => {
    const once = JSON.stringify(s).slice(1, -1);
    return [s, once, JSON.stringify(once).slice(1, -1)];
  });
  return (line) => {
    if (!serialised.some((s) => line.includes(s))) {
      return scrubShapes(
        line.replace(SECRET_FIELD, `$1:"${CENSOR}"`).replace(ESCAPED_JSON_FIELD, `$1${CENSOR}`),
      );
    }
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
