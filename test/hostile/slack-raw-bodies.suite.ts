import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTIONS, VIEWS } from "../../src/slack/ids.ts";
import type { SlackMode } from "../../support/e2e/stack.ts";
import { ALICE, CHANNEL, SIGNING_SECRET } from "../../support/e2e/stack.ts";
import {
  blockActionPayload,
  viewSubmissionPayload,
} from "../../support/fake-slack/slack-payloads.ts";
import {
  type SlackAppResponse,
  sendSigned,
  signSlackRequest,
} from "../../support/fake-slack/slack-request.ts";
import { junkJson, nastyText } from "../../support/hostile/arbitraries.ts";
import {
  ANSWER_WITHIN_MS,
  createdJobFiles,
  expectAnswered,
  expectProcessIntact,
  type HostileStack,
  runsIn,
  startHostileStack,
  timed,
} from "../../support/hostile/hostile-stack.ts";

/**
 * Raw bodies against the real app's `/slack/events`: bad JSON, truncated envelopes, random
 * bytes, wrong content types, junk `payload=` forms, envelopes with a field replaced —
 * all signed properly — and requests with a missing or wrong signature.
 *
 * Many of these reach no listener (action ids, callback ids and commands that are not ours
 * too), and Bolt answers those with 404 after 3 s; the 54 signed bodies go at once so the
 * wait is paid once, and the slow tests of this file run concurrently.
 *
 * Cases: 1 run of 54 concurrent signed bodies + 150 (bad signatures; 50 in OAuth mode) = 151
 * generated cases (204 requests, as before: 3 runs of 18), plus 2 example-based regression
 * tests of bugs these runs found. A failing batch is reported as found, not shrunk: each try
 * costs Bolt's 3 s.
 */
export function slackRawBodiesSuite(mode: SlackMode): void {
  let h: HostileStack;
  beforeAll(async () => {
    h = await startHostileStack(mode);
  });
  afterAll(async () => {
    await expectProcessIntact(h);
    await h.stop();
  });

  const JSON_TYPE = "application/json";
  const FORM_TYPE = "application/x-www-form-urlencoded";
  const CONTENT_TYPES = [
    JSON_TYPE,
    FORM_TYPE,
    "text/plain",
    "",
    "multipart/form-data; boundary=x",
    "application/json; charset=utf-16",
    "application/xml",
    "APPLICATION/JSON",
  ];

  function eventEnvelope(): Record<string, unknown> {
    return {
      token: "fake-verification-token",
      team_id: "T0FAKE",
      api_app_id: "A0FAKEAPP",
      event: {
        type: "message",
        channel: CHANNEL,
        user: ALICE,
        ts: "1700000000.000100",
        text: "hi",
      },
      type: "event_callback",
      event_id: `Ev0${randomBytes(5).toString("hex")}`,
      event_time: 1_700_000_000,
    };
  }

  function actionEnvelope(): Record<string, unknown> {
    return blockActionPayload({
      actionId: ACTIONS.cancel,
      value: "not-a-job",
      user: ALICE,
      channel: CHANNEL,
      messageTs: "1700000000.000100",
    });
  }

  function viewEnvelope(): Record<string, unknown> {
    return viewSubmissionPayload({
      callbackId: VIEWS.newNotes,
      privateMetadata: "{}",
      values: {},
      user: ALICE,
    });
  }

  type Raw = { body: string; contentType: string; label: string };

  /** An interaction as Slack posts it: `payload=<json>`, form-encoded. */
  function formOf(payload: unknown): string {
    return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  }

  const envelopeWithJunk: fc.Arbitrary<Raw> = fc
    .tuple(fc.constantFrom("event", "action", "view"), fc.nat(), junkJson)
    .map(([kind, pick, junk]) => {
      const envelope =
        kind === "event" ? eventEnvelope() : kind === "action" ? actionEnvelope() : viewEnvelope();
      // Any field, those Bolt itself reads included (`event`, `user`, `team_id`…).
      const keys = Object.keys(envelope);
      const key = keys[pick % keys.length] ?? "token";
      envelope[key] = junk;
      const json = JSON.stringify(envelope);
      return kind === "event"
        ? { body: json, contentType: JSON_TYPE, label: `event with ${key}` }
        : {
            body: new URLSearchParams({ payload: json }).toString(),
            contentType: FORM_TYPE,
            label: `${kind} with ${key}`,
          };
    });

  /**
   * Junk for a whole body or a whole `payload`: any JSON but a bare `null`, which Bolt's
   * receiver trips over outside any handler (the regression test below).
   */
  const junkBody = junkJson.filter((v) => v !== null);

  const rawBody: fc.Arbitrary<Raw> = fc.oneof(
    // Any JSON in any content type.
    fc
      .tuple(junkBody, fc.constantFrom(...CONTENT_TYPES))
      .map(([v, contentType]) => ({ body: JSON.stringify(v), contentType, label: "json" })),
    // A real envelope cut short.
    fc
      .tuple(
        fc.constantFrom(eventEnvelope, actionEnvelope, viewEnvelope),
        fc.double({ min: 0, max: 1, noNaN: true }),
      )
      .map(([make, at]) => {
        const json = JSON.stringify(make());
        return {
          body: json.slice(0, Math.floor(json.length * at)),
          contentType: JSON_TYPE,
          label: "truncated",
        };
      }),
    // Random bytes.
    fc
      .tuple(fc.uint8Array({ maxLength: 400 }), fc.constantFrom(...CONTENT_TYPES))
      .map(([bytes, contentType]) => ({
        body: Buffer.from(bytes).toString("latin1"),
        contentType,
        label: "bytes",
      })),
    // `payload=` with junk, and junk forms.
    junkBody.map((v) => ({
      body: `payload=${encodeURIComponent(JSON.stringify(v))}`,
      contentType: FORM_TYPE,
      label: "payload",
    })),
    fc.dictionary(nastyText(20), nastyText(40), { maxKeys: 5 }).map((form) => ({
      body: new URLSearchParams(form).toString(),
      contentType: FORM_TYPE,
      label: "form",
    })),
    fc
      .tuple(fc.constantFrom("/meeting-notes ", "/other", "", "/MEETING-NOTES"), nastyText(20))
      .map(([command, text]) => ({
        body: new URLSearchParams({
          command,
          text,
          user_id: ALICE,
          channel_id: CHANNEL,
          team_id: "T0FAKE",
        }).toString(),
        contentType: FORM_TYPE,
        label: "other command",
      })),
    envelopeWithJunk,
    // Action ids, callback ids and commands that are not ours: nobody acks them.
    fc
      .oneof(
        nastyText(40),
        fc.constantFrom("job_cancel ", "JOB_CANCEL", "job_", "job_cancel\u0000"),
      )
      .map((actionId) => {
        const action = { action_id: actionId, block_id: "b", value: "x", type: "button" };
        const payload = { ...actionEnvelope(), actions: [action] };
        return { body: formOf(payload), contentType: FORM_TYPE, label: "unknown action id" };
      }),
    fc
      .oneof(nastyText(40), fc.constantFrom("speaker_names ", "NEW_NOTES", ""))
      .map((callbackId) => {
        const payload = viewSubmissionPayload({
          callbackId,
          privateMetadata: "{}",
          values: {},
          user: ALICE,
        });
        return { body: formOf(payload), contentType: FORM_TYPE, label: "unknown callback id" };
      }),
    fc.constantFrom<Raw>(
      { body: "", contentType: JSON_TYPE, label: "empty" },
      { body: "{", contentType: JSON_TYPE, label: "open brace" },
      {
        body: '{"type":"url_verification","challenge":"<!here>"}',
        contentType: JSON_TYPE,
        label: "challenge",
      },
      { body: "ssl_check=1", contentType: FORM_TYPE, label: "ssl check" },
      { body: "payload=", contentType: FORM_TYPE, label: "empty payload" },
      { body: "payload=%E0%A4%A", contentType: FORM_TYPE, label: "bad percent" },
      { body: `{"a":"${"x".repeat(200_000)}"}`, contentType: JSON_TYPE, label: "200 KB" },
      { body: `${"[".repeat(5_000)}${"]".repeat(5_000)}`, contentType: JSON_TYPE, label: "deep" },
    ),
  );

  /** An HTTP status the app answered with: any but a server error (-1: no answer at all). */
  const answered = (status: number) => status > 0 && status < 500;

  /** POSTs a body with the signature headers given (or none), no signing of our own. */
  async function sendUnsigned(
    body: string,
    headers: Record<string, string>,
  ): Promise<SlackAppResponse> {
    const response = await fetch(h.stack.url, {
      method: "POST",
      headers: { "content-type": JSON_TYPE, ...headers },
      body,
      signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
    });
    return {
      status: response.status,
      headers: response.headers,
      body: await response.text(),
      json: undefined,
    };
  }
  // One concurrent suite: the batches of signed bodies and the regression tests each wait
  // seconds for Bolt, and those waits overlap.
  describe.concurrent(`raw bodies (${mode} mode)`, () => {
    it("answers every signed body without a 5xx within a few seconds", async () => {
      const createdBefore = createdJobFiles(h.stack).length;
      await fc.assert(
        fc.asyncProperty(fc.array(rawBody, { minLength: 54, maxLength: 54 }), async (bodies) => {
          const answers = await Promise.all(
            bodies.map(async (raw) => ({
              raw,
              answer: await timed((signal) =>
                sendSigned(h.stack.url, SIGNING_SECRET, raw.body, raw.contentType, { signal }),
              ),
            })),
          );
          for (const { raw, answer } of answers) expectAnswered(answer, raw.label);
        }),
        { numRuns: 1, endOnFailure: true },
      );
      expect(createdJobFiles(h.stack).length).toBe(createdBefore);
    }, 60_000);

    it("refuses every body without a valid signature with 401, at once", async () => {
      const now = () => Math.floor(Date.now() / 1000);
      type Forgery =
        | { kind: "no headers" | "no signature" | "no timestamp" | "wrong secret" }
        | { kind: "junk signature"; signature: string }
        | { kind: "junk timestamp"; timestamp: string }
        | { kind: "stale"; age: number };
      const forgery: fc.Arbitrary<Forgery> = fc.oneof(
        fc.constantFrom<Forgery>(
          { kind: "no headers" },
          { kind: "no signature" },
          { kind: "no timestamp" },
          { kind: "wrong secret" },
        ),
        nastyText(80).map((signature): Forgery => ({ kind: "junk signature", signature })),
        // Only the past: Bolt accepts a correctly signed request dated in the future (its
        // check is one-sided), which needs the secret anyway — noted in the report, no test.
        fc.integer({ min: 301, max: 10_000_000 }).map((age): Forgery => ({ kind: "stale", age })),
        nastyText(20).map((timestamp): Forgery => ({ kind: "junk timestamp", timestamp })),
      );
      const body = fc.oneof(
        fc.constant(JSON.stringify(eventEnvelope())),
        fc.constant(new URLSearchParams({ payload: JSON.stringify(actionEnvelope()) }).toString()),
        junkJson.map((v) => JSON.stringify(v)),
      );
      await fc.assert(
        fc.asyncProperty(forgery, body, async (f, raw) => {
          const signed = signSlackRequest(SIGNING_SECRET, raw);
          let headers: Record<string, string>;
          switch (f.kind) {
            case "no headers":
              headers = {};
              break;
            case "no signature":
              headers = { "x-slack-request-timestamp": signed["x-slack-request-timestamp"] };
              break;
            case "no timestamp":
              headers = { "x-slack-signature": signed["x-slack-signature"] };
              break;
            case "wrong secret":
              headers = signSlackRequest(`${SIGNING_SECRET}x`, raw);
              break;
            case "junk signature":
              headers = {
                ...signed,
                "x-slack-signature": encodeURIComponent(f.signature.toWellFormed()),
              };
              break;
            case "junk timestamp":
              headers = {
                ...signed,
                "x-slack-request-timestamp": encodeURIComponent(f.timestamp.toWellFormed()),
              };
              break;
            default:
              // Correctly signed, but more than five minutes ago.
              headers = signSlackRequest(SIGNING_SECRET, raw, now() - f.age);
          }
          const answer = await timed(() => sendUnsigned(raw, headers));
          expectAnswered(answer, f.kind);
          expect(answer.res.status, `${f.kind}: ${answer.res.body.slice(0, 100)}`).toBe(401);
        }),
        { numRuns: runsIn(mode, 150) },
      );
    }, 60_000);

    it("a signed body of JSON `null` (or `payload=null`) is answered, and nothing rejects unhandled", async () => {
      try {
        const answers = await Promise.all([
          timed(
            (signal) => sendSigned(h.stack.url, SIGNING_SECRET, "null", JSON_TYPE, { signal }),
            ANSWER_WITHIN_MS,
          ),
          timed(
            (signal) =>
              sendSigned(h.stack.url, SIGNING_SECRET, "payload=null", FORM_TYPE, { signal }),
            ANSWER_WITHIN_MS,
          ),
        ]);
        // Once the app is quiet, a rejection of those requests would have been reported.
        await h.stack.settled();
        await new Promise((resolve) => setImmediate(resolve));
        // Bolt's HTTPReceiver reads `body.ssl_check` of the parsed body outside any try: for
        // `null` it throws inside a request handler nobody awaits. Node 24 ends a process on
        // an unhandled rejection (src/main.ts now logs it instead), and the request is never
        // answered, so Slack would retry it.
        expect({
          statuses: answers.map((a) => a.res.status),
          escaped: h.watch.describe(),
        }).toEqual({
          statuses: [expect.toSatisfy(answered), expect.toSatisfy(answered)],
          escaped: [],
        });
        for (const answer of answers) expectAnswered(answer, "null body");
      } finally {
        h.watch.take();
      }
    });

    it("signed payloads with junk in a field Bolt relies on are answered without a 5xx", async () => {
      const withField = (make: () => Record<string, unknown>, path: string[], value: unknown) => {
        const envelope = make();
        let target = envelope;
        for (const key of path.slice(0, -1)) target = target[key] as Record<string, unknown>;
        target[path.at(-1) ?? ""] = value;
        return envelope;
      };
      const cases: [string, Record<string, unknown>, "json" | "form"][] = [
        ["event: null", withField(eventEnvelope, ["event"], null), "json"],
        ['event: "x"', withField(eventEnvelope, ["event"], "x"), "json"],
        ["event.channel: null", withField(eventEnvelope, ["event", "channel"], null), "json"],
        ["event.user: null", withField(eventEnvelope, ["event", "user"], null), "json"],
        ["block_actions actions: null", withField(actionEnvelope, ["actions"], null), "form"],
        ["block_actions actions: 1", withField(actionEnvelope, ["actions"], 1), "form"],
        ["block_actions channel: null", withField(actionEnvelope, ["channel"], null), "form"],
        ["block_actions user: null", withField(actionEnvelope, ["user"], null), "form"],
        ["view_submission view: null", withField(viewEnvelope, ["view"], null), "form"],
        [
          "view_submission response_urls: null",
          withField(viewEnvelope, ["response_urls"], null),
          "form",
        ],
        // Bolt keeps its clients per team in a plain object: `clients["constructor"]` exists.
        [
          'event team_id: "constructor"',
          withField(eventEnvelope, ["team_id"], "constructor"),
          "json",
        ],
        [
          'block_actions team.id: "__proto__"',
          withField(actionEnvelope, ["team", "id"], "__proto__"),
          "form",
        ],
        [
          'view_submission team.id: "toString"',
          withField(viewEnvelope, ["team", "id"], "toString"),
          "form",
        ],
        // A payload with `name` is read as an options request, whose `user` Bolt requires.
        ["payload {name: {}}", { name: {} }, "form"],
      ];
      const answers = await Promise.all(
        cases.map(async ([label, envelope, kind]) => {
          const json = JSON.stringify(envelope);
          const answer = await timed((signal) =>
            kind === "json"
              ? sendSigned(h.stack.url, SIGNING_SECRET, json, JSON_TYPE, { signal })
              : sendSigned(
                  h.stack.url,
                  SIGNING_SECRET,
                  new URLSearchParams({ payload: json }).toString(),
                  FORM_TYPE,
                  { signal },
                ),
          );
          return `${label} → ${answer.res.status}`;
        }),
      );
      expect(answers.filter((a) => /→ (5\d\d|-1)$/.test(a))).toEqual([]);
    });
  });
}
