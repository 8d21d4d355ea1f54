import { createHmac } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { App, LogLevel, verifySlackRequest } from "@slack/bolt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeSlack, type FakeSlack } from "../../support/fake-slack/create-fake-slack.ts";
import {
  blockActionPayload,
  fileShareMessageEvent,
  redeliverEvent,
  sendAction,
  sendCommand,
  sendEvent,
  sendViewSubmission,
  viewSubmissionPayload,
} from "../../support/fake-slack/slack-request.ts";

const SECRET = "fake-signing-secret";

describe("signing", () => {
  let server: Server;
  let url: string;
  const seen: { body: string; headers: IncomingHttpHeaders }[] = [];

  beforeAll(async () => {
    server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      seen.push({ body: Buffer.concat(chunks).toString("utf8"), headers: req.headers });
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("signs a slash command so Bolt's own verifier accepts it", async () => {
    const res = await sendCommand(url, SECRET, { text: "fr", user_id: "U0ANH", channel_id: "C0M" });
    expect(res.status).toBe(200);
    const request = seen.at(-1);
    if (request === undefined) throw new Error("no request seen");
    const timestamp = Number(request.headers["x-slack-request-timestamp"]);
    const signature = String(request.headers["x-slack-signature"]);
    expect(() =>
      verifySlackRequest({
        signingSecret: SECRET,
        body: request.body,
        headers: { "x-slack-signature": signature, "x-slack-request-timestamp": timestamp },
      }),
    ).not.toThrow();
    const independent = createHmac("sha256", SECRET).update(`v0:${timestamp}:${request.body}`);
    expect(signature).toBe(`v0=${independent.digest("hex")}`);
    expect(request.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    const form = new URLSearchParams(request.body);
    expect(form.get("command")).toBe("/meeting-notes");
    expect(form.get("team_id")).toBe("T0FAKE");
    expect(form.get("trigger_id")).toMatch(/^\d+\.\d+\.[0-9a-f]+$/);
  });
});

describe("a Bolt app driven by signed requests and the fake Web API", () => {
  let fake: FakeSlack;
  let app: App;
  let url: string;
  const events: { event: Record<string, unknown>; retryNum: number | undefined }[] = [];
  const actions: string[] = [];

  beforeAll(async () => {
    fake = await createFakeSlack();
    app = new App({
      token: fake.botToken,
      signingSecret: SECRET,
      logLevel: LogLevel.ERROR,
      clientOptions: { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } },
    });
    app.command("/meeting-notes", async ({ ack, command, client }) => {
      await ack();
      await client.chat.postMessage({ channel: command.channel_id, text: `got ${command.text}` });
    });
    app.event("message", async ({ event, context }) => {
      events.push({
        event: event as unknown as Record<string, unknown>,
        retryNum: context.retryNum,
      });
    });
    app.action("job_cancel", async ({ ack, action }) => {
      await ack();
      actions.push((action as { value: string }).value);
    });
    app.view("speaker_names", async ({ ack }) => {
      await ack({ response_action: "errors", errors: { speaker_1: "Give a name" } });
    });
    const server = (await app.start({ port: 0, host: "127.0.0.1" })) as Server;
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
  });
  afterAll(async () => {
    await app.stop();
    await fake.close();
  });

  it("acks a command, whose handler then posts through the fake", async () => {
    const res = await sendCommand(url, SECRET, { text: "hi", user_id: "U0ANH", channel_id: "C0M" });
    expect(res.status).toBe(200);
    await expect.poll(() => fake.messages("C0M").map((m) => m.text)).toEqual(["got hi"]);
    expect(fake.callsTo("auth.test").length).toBeGreaterThan(0);
  });

  it("delivers a file_share event, and a retry with x-slack-retry-num", async () => {
    const file = fake.addFile({ name: "standup.m4a", bytes: "audio" });
    const share = fake.shareFile(file, { channel: "C0M", user: "U0ANH" });
    const event = fileShareMessageEvent(file, { channel: "C0M", user: "U0ANH", ts: share.ts });
    const first = await sendEvent(url, SECRET, event, { teamId: fake.teamId });
    expect(first.status).toBe(200);
    const again = await redeliverEvent(url, SECRET, first, 1);
    expect(again.status).toBe(200);
    // The same envelope, signed anew a little later, as Slack retries.
    expect(again.rawBody).toBe(first.rawBody);
    expect(again.timestamp).toBe(first.timestamp + 1);
    await expect.poll(() => events.length).toBe(2);
    expect(events[0]?.event).toMatchObject({ subtype: "file_share", files: [{ id: file.id }] });
    expect(events.map((e) => e.retryNum)).toEqual([undefined, 1]);
  });

  it("delivers a button click and a view submission answered with errors", async () => {
    const click = blockActionPayload({
      actionId: "job_cancel",
      value: "job-1",
      user: "U0ANH",
      channel: "C0M",
      messageTs: "1700000000.000100",
    });
    expect((await sendAction(url, SECRET, click)).status).toBe(200);
    await expect.poll(() => actions).toEqual(["job-1"]);
    const submission = viewSubmissionPayload({
      callbackId: "speaker_names",
      privateMetadata: "job-1",
      values: { speaker_1: { name: { type: "plain_text_input", value: "" } } },
      user: "U0ANH",
    });
    const res = await sendViewSubmission(url, SECRET, submission);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ response_action: "errors", errors: { speaker_1: "Give a name" } });
  });

  it("is refused by Bolt when the signature or timestamp is wrong", async () => {
    const input = { text: "x", user_id: "U0ANH", channel_id: "C0M" };
    expect((await sendCommand(url, SECRET, input, { signature: "v0=00" })).status).toBe(401);
    expect((await sendCommand(url, "another-secret", input)).status).toBe(401);
    const stale = Math.floor(Date.now() / 1000) - 10 * 60;
    expect((await sendCommand(url, SECRET, input, { timestamp: stale })).status).toBe(401);
  });
});
