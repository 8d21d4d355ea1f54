/** What no log line may hold: the configured secrets and each capability Slack hands the app. */

export const CENSOR = "[redacted]";

/*
 * The shapes below take in no quote or backslash and need no word boundary, so they run on a
 * serialised JSON line and leave it JSON; bounded runs keep each line linear.
 */

/** Slack's tokens by their published prefixes (bot, user, rotation, app, a step's `xwfp-`). */
const SLACK_TOKEN = /(?:xoxe\.)?(?:xox[a-z]|xoxe|xapp|xwfp)-[A-Za-z0-9._-]*[A-Za-z0-9]/g;

/** Hook URLs: each posts as the app. */
const HOOK_URL = /https?:\/\/hooks\.slack(?:-gov)?\.[a-z.]+\/[^\s"'<>\\]*/gi;

/** Trigger ids and OAuth codes (`12345.98765.abcd2358fdea`); timestamps have two parts. */
const DOTTED_CAPABILITY = /(?<![\d.])\d{1,20}\.\d{1,20}\.[0-9a-f]{8,}\b/gi;

/** A JWT (the signed OAuth state), tried once per run of base64url, not at each `eyJ`. */
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

/** Logged fields whose string value is a capability; not `code`: errors carry one worth reading. */
const SECRET_KEY = /token|secret|authorization|^trigger_id$|^response_url$/i;

/** Such a field in a serialised line (names bounded: an unbounded one backtracks). */
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
 * Scrubs one serialised log line and keeps it JSON: a line holding a known secret is parsed
 * and its values scrubbed; the others (the usual case) by the shapes alone.
 */
export function createScrub(secrets: readonly (string | undefined)[]): (line: string) => string {
  // Longest first, so that no part of a secret survives a shorter one it contains.
  const known = [...new Set(secrets)]
    .filter((s): s is string => s !== undefined && s !== "")
    .sort((a, b) => b.length - a.length);
  // As each appears in a line: raw, escaped once, or twice (JSON inside a message).
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
 * Lines Slack's SDKs write at debug with a whole payload after a fixed text (envelopes, call
 * arguments and answers, the authorize URL, ack bodies): the payload is never written.
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
