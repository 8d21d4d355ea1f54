import { expect } from "vitest";
import type { FakeSlack } from "../fake-slack/create-fake-slack.ts";
import type { CapabilityKind } from "../fake-slack/handed-out.ts";

/**
 * Shapes no log line may hold whatever the fake handed out: a Slack token of any prefix
 * (the step's `xwfp-` too), a hook URL (`response_url`s, webhooks), a JWT (the OAuth state),
 * a code, state or ticket in a URL's query.
 */
const SHAPES: ReadonlyArray<[what: string, pattern: RegExp]> = [
  ["a Slack token", /\b(?:xox[a-z]|xapp|xwfp|xoxe)-[A-Za-z0-9]/],
  ["a hook URL", /hooks\.slack[a-z.-]*\//],
  ["a JWT", /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\./],
  ["a code, state or ticket in a URL", /[?&](?:code|state|ticket)=[^&\s"\\]/],
];

/** Where a value stands in the log, for a failure message: the line around it. */
function around(log: string, at: number): string {
  const start = log.lastIndexOf("\n", at) + 1;
  const end = log.indexOf("\n", at);
  const line = log.slice(start, end === -1 ? undefined : end);
  return line.length > 400 ? `${line.slice(0, 400)}…` : line;
}

/**
 * The app's log holds none of the capabilities `fake` handed it during the run (tokens, step
 * tokens, OAuth codes and states, Socket Mode tickets, every `trigger_id` and `response_url`
 * delivered), none of `secrets` (the app's own configuration), and nothing shaped like one.
 * `handedOut` names the kinds this run must have handed out, so the scan is never vacuous;
 * the log must hold debug lines, the most talkative level.
 */
export function expectNoCapabilityInLog(
  log: string,
  o: {
    fake: Pick<FakeSlack, "handedOut">;
    secrets: readonly string[];
    handedOut: CapabilityKind[];
  },
): void {
  expect(log).toContain('"level":20');
  const capabilities = o.fake.handedOut();
  const kinds = new Set(capabilities.map((c) => c.kind));
  expect(o.handedOut.filter((kind) => !kinds.has(kind))).toEqual([]);
  const found: string[] = [];
  for (const { kind, value } of capabilities) {
    const at = log.indexOf(value);
    if (at >= 0) found.push(`${kind}: ${around(log, at)}`);
  }
  for (const secret of o.secrets) {
    const at = secret === "" ? -1 : log.indexOf(secret);
    if (at >= 0) found.push(`a configured secret: ${around(log, at)}`);
  }
  for (const [what, pattern] of SHAPES) {
    const at = log.search(pattern);
    if (at >= 0) found.push(`${what}: ${around(log, at)}`);
  }
  expect(found).toEqual([]);
}
