/**
 * The host's wall clock set 10 minutes off while the bot runs: Slack's request timestamps
 * stay true, so they are judged by the store's clock (the wall clock read when the store
 * opened, advanced by the monotonic clock). The fault suite found every request refused as
 * stale, first by our own check, then by Bolt's, which reads `Date.now()`.
 */
import { afterEach, expect, it, vi } from "vitest";
import {
  ALICE,
  CHANNEL,
  eventually,
  SIGNING_SECRET,
  statusMessage,
  useStack,
} from "../../support/e2e/stack.ts";
import { fileShareMessageEvent, sendEvent } from "../../support/fake-slack/slack-request.ts";
import { recordingBytes } from "../../support/fakes/recording-bytes.ts";

const stack = useStack();
afterEach(() => vi.restoreAllMocks());

const TEN_MINUTES_MS = 10 * 60_000;

it.each([
  ["forward", TEN_MINUTES_MS],
  ["back", -TEN_MINUTES_MS],
])("takes Slack's requests with the wall clock set 10 minutes %s", async (_direction, offset) => {
  const realNow = Date.now.bind(Date);
  const slackSeconds = Math.floor(realNow() / 1000);
  vi.spyOn(Date, "now").mockImplementation(() => realNow() + offset);
  const name = `clock-${offset}.m4a`;
  const file = stack.fake.addFile({ name, bytes: recordingBytes(name), user: ALICE });
  const message = stack.fake.shareFile(file, { channel: CHANNEL, user: ALICE });
  const event = fileShareMessageEvent(file, { channel: CHANNEL, user: ALICE, ts: message.ts });
  const answer = await sendEvent(stack.url, SIGNING_SECRET, event, {
    teamId: stack.fake.teamId,
    timestamp: slackSeconds,
  });
  expect(answer.status).toBe(200);
  await eventually(
    () => statusMessage(stack.thread(message.ts)),
    (m) => m !== undefined,
    { what: "the job's status message" },
  );
});

it("still refuses a request dated 10 minutes off by the store's clock", async () => {
  const name = "stale.m4a";
  const file = stack.fake.addFile({ name, bytes: recordingBytes(name), user: ALICE });
  const event = fileShareMessageEvent(file, { channel: CHANNEL, user: ALICE });
  const answer = await sendEvent(stack.url, SIGNING_SECRET, event, {
    teamId: stack.fake.teamId,
    timestamp: Math.floor(Date.now() / 1000) - 600,
  });
  expect(answer.status).toBe(401);
});
