import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { LogLevel, WebClient } from "@slack/web-api";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createFakeSlack, type FakeSlack } from "../../support/fake-slack/create-fake-slack.ts";
import { signSlackRequest } from "../../support/fake-slack/slack-request.ts";
import { loadObject } from "../fixtures/slack-payloads/index.ts";

/**
 * The fake sends Events API callbacks as Slack does, to a small app that only records them
 * and checks each signature: the bot's own posts and uploads come back as events.
 */
const SECRET = "delivery-test-secret";
const C = "C0DELIVERY";

interface Received {
  envelope: Record<string, unknown>;
  event: Record<string, unknown>;
  signed: boolean;
}

let fake: FakeSlack;
let client: WebClient;
let app: Server;
let appUrl: string;
const received: Received[] = [];

beforeAll(async () => {
  fake = await createFakeSlack();
  client = new WebClient(fake.botToken, {
    slackApiUrl: fake.apiUrl,
    retryConfig: { retries: 0 },
    logLevel: LogLevel.ERROR,
  });
  app = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const timestamp = Number(req.headers["x-slack-request-timestamp"]);
      const expected = signSlackRequest(SECRET, body, timestamp)["x-slack-signature"];
      const envelope = JSON.parse(body) as Record<string, unknown>;
      received.push({
        envelope,
        event: envelope.event as Record<string, unknown>,
        signed: req.headers["x-slack-signature"] === expected,
      });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => app.listen(0, "127.0.0.1", resolve));
  appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/slack/events`;
});
afterEach(() => {
  fake.deliverEvents(undefined);
  fake.reset();
  received.length = 0;
});
afterAll(async () => {
  await fake.close();
  await new Promise((resolve) => app.close(resolve));
});

const on = () => fake.deliverEvents({ url: appUrl, signingSecret: SECRET });

/** Slack's published bot message event, for its field names. */
const publishedBotEvent = loadObject("event-message-bot", {
  team: "T0",
  channel: "C0",
  bot: "U0",
  botId: "B0",
  app: "A0",
}).event as Record<string, unknown>;

describe("event delivery", () => {
  it("is off by default: the bot's posts reach no app", async () => {
    await client.chat.postMessage({ channel: C, text: "hello" });
    await fake.deliveriesSettled();
    expect(received).toEqual([]);
    expect(fake.deliveries).toEqual([]);
  });

  it("sends a signed message event for the bot's own post, shaped as Slack's", async () => {
    on();
    const parent = await client.chat.postMessage({ channel: C, text: "Transcribing…" });
    await client.chat.postMessage({ channel: C, thread_ts: parent.ts as string, text: "Part 1" });
    await fake.deliveriesSettled();
    expect(received.map((r) => r.signed)).toEqual([true, true]);
    const [first, reply] = received.map((r) => r.event);
    expect(Object.keys(first ?? {}).sort()).toEqual(Object.keys(publishedBotEvent).sort());
    expect(first).toMatchObject({
      type: "message",
      user: fake.botUserId,
      bot_id: fake.botId,
      ts: parent.ts,
      channel: C,
      channel_type: "channel",
      bot_profile: { id: fake.botId, app_id: fake.appId },
    });
    expect(first?.subtype).toBeUndefined();
    expect(reply).toMatchObject({ thread_ts: parent.ts, parent_user_id: fake.botUserId });
    expect(received[0]?.envelope).toMatchObject({ type: "event_callback", team_id: fake.teamId });
    expect(fake.deliveries.map((d) => d.status)).toEqual([200, 200]);
  });

  it("sends file_shared naming the bot and a file_share message for its own upload", async () => {
    on();
    const parent = await client.chat.postMessage({ channel: C, text: "Notes ready" });
    await client.filesUploadV2({
      channel_id: C,
      thread_ts: parent.ts as string,
      file: Buffer.from("PK\u0003\u0004 not really a docx"),
      filename: "notes.docx",
    });
    await fake.deliveriesSettled();
    const events = received.map((r) => r.event).slice(1);
    const upload = fake.uploads[0];
    expect(events.map((e) => e.type)).toEqual(["file_shared", "message"]);
    expect(events[0]).toMatchObject({
      channel_id: C,
      file_id: upload?.file_id,
      user_id: fake.botUserId,
      file: { id: upload?.file_id },
    });
    expect(events[1]).toMatchObject({
      subtype: "file_share",
      user: fake.botUserId,
      bot_id: fake.botId,
      thread_ts: parent.ts,
      channel: C,
      files: [{ id: upload?.file_id, name: "notes.docx", user: fake.botUserId }],
    });
    expect(events[1]?.client_msg_id).toBeUndefined();
  });

  it("shares a canvas and a snippet as people do, with Slack's types and both events", async () => {
    on();
    const canvas = fake.shareCanvas({ channel: C, user: "U0PERSON", title: "Q3 plan" });
    const snippet = fake.shareSnippet({ channel: C, user: "U0PERSON", content: "a\nb\nc" });
    await fake.deliveriesSettled();
    expect(canvas.file).toMatchObject({
      filetype: "quip",
      mimetype: "application/vnd.slack-docs",
      mode: "quip",
      pretty_type: "Canvas",
    });
    expect(snippet.file).toMatchObject({
      filetype: "text",
      mimetype: "text/plain",
      mode: "snippet",
      lines: 3,
    });
    const events = received.map((r) => r.event);
    expect(events.map((e) => [e.type, e.user_id ?? e.user])).toEqual([
      ["file_shared", "U0PERSON"],
      ["message", "U0PERSON"],
      ["file_shared", "U0PERSON"],
      ["message", "U0PERSON"],
    ]);
    expect(events[1]).toMatchObject({ subtype: "file_share", files: [{ id: canvas.file.id }] });
    expect(events[1]?.bot_id).toBeUndefined();
    expect((await client.files.info({ file: snippet.file.id })).file?.mode).toBe("snippet");
  });

  it("sends a Slack Connect channel's events with its host as team_id and the install in authorizations", async () => {
    // As Slack's SDK fixture has them (test/fixtures/slack/slack-connect.json).
    const host = { teamId: "T0PARTNER1", enterpriseId: "E0PARTNER1" };
    const CONNECT = "C0CONNECTD";
    fake.addChannel({ id: CONNECT, name: "partner-sync", connect: host });
    on();
    fake.shareSnippet({ channel: CONNECT, user: "U0PERSON", content: "agenda" });
    await client.chat.postMessage({ channel: CONNECT, text: "hello" });
    await client.chat.postMessage({ channel: C, text: "at home" });
    await fake.deliveriesSettled();
    const envelopes = received.map((r) => r.envelope);
    expect(envelopes.map((e) => (e.event as { type: string }).type)).toEqual([
      "file_shared",
      "message",
      "message",
      "message",
    ]);
    for (const envelope of envelopes.slice(0, 3)) {
      expect(envelope).toMatchObject({
        team_id: host.teamId,
        enterprise_id: host.enterpriseId,
        authorizations: [{ team_id: fake.teamId, user_id: fake.botUserId, is_bot: true }],
        is_ext_shared_channel: true,
      });
      expect(envelope.context_team_id).toBeUndefined();
    }
    expect(envelopes[3]).toMatchObject({ team_id: fake.teamId, is_ext_shared_channel: false });
    const info = await client.conversations.info({ channel: CONNECT });
    expect(info.channel).toMatchObject({ is_ext_shared: true, conversation_host_id: host.teamId });
  });

  it("serves Slack's transcoded copy under files-tmb only with the token", async () => {
    const file = fake.addFileObject(
      {
        id: "F0PREVIEW1",
        name: "talk.mp3",
        url_private: `${fake.origin}/files-tmb/${fake.teamId}-F0PREVIEW1-9aaa1171c6/talk_audio.mp4`,
      },
      { bytes: Buffer.from("original"), preview: Buffer.from("transcoded") },
    );
    const url = String((file as unknown as { url_private: string }).url_private);
    const anonymous = await fetch(url);
    expect(await anonymous.text()).toContain("Sign in");
    const authorised = await fetch(url, { headers: { authorization: `Bearer ${fake.botToken}` } });
    expect(await authorised.text()).toBe("transcoded");
    expect(fake.downloads.map((d) => [d.fileId, d.served])).toEqual([
      ["F0PREVIEW1", false],
      ["F0PREVIEW1", true],
    ]);
  });
});
