import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ConversationsRepliesResponse, LogLevel, WebClient } from "@slack/web-api";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createFakeSlack, type FakeSlack } from "../../support/fake-slack/create-fake-slack.ts";
import { LOGIN_PAGE } from "../../support/fake-slack/file-download.ts";
import { newTriggerId } from "../../support/fake-slack/slack-payloads.ts";

let fake: FakeSlack;
let client: WebClient;
let dir: string;
const C = "C0MEETINGS";

beforeAll(async () => {
  fake = await createFakeSlack();
  client = newClient();
  dir = mkdtempSync(join(tmpdir(), "fake-slack-"));
});
afterEach(() => fake.reset());
afterAll(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

function newClient(retryConfig: { retries: number; minTimeout?: number } = { retries: 0 }) {
  return new WebClient(fake.botToken, {
    slackApiUrl: fake.apiUrl,
    retryConfig,
    logLevel: LogLevel.ERROR,
  });
}

const sha256 = (data: Buffer | string): string => createHash("sha256").update(data).digest("hex");

describe("messages", () => {
  it("stores blocks and metadata and returns the thread with metadata only when asked", async () => {
    const metadata = { event_type: "meeting_notes_job", event_payload: { job_id: "j1" } };
    const blocks = [{ type: "section", text: { type: "mrkdwn", text: "*Working…*" } }];
    const parent = await client.chat.postMessage({ channel: C, text: "Working", blocks, metadata });
    expect(parent.ts).toMatch(/^\d+\.\d{6}$/);
    const reply = await client.chat.postMessage({
      channel: C,
      thread_ts: parent.ts as string,
      text: "part 1",
    });
    expect(Number(reply.ts)).toBeGreaterThan(Number(parent.ts));

    const withMeta = await client.conversations.replies({
      channel: C,
      ts: parent.ts as string,
      include_all_metadata: true,
    });
    expect(withMeta.messages?.map((m) => m.text)).toEqual(["Working", "part 1"]);
    expect(withMeta.messages?.[0]?.metadata).toEqual(metadata);
    expect(withMeta.messages?.[0]?.blocks).toEqual(blocks);
    expect(withMeta.messages?.[0]?.reply_count).toBe(1);
    const plain = await client.conversations.replies({ channel: C, ts: parent.ts as string });
    expect(plain.messages?.[0]?.metadata).toBeUndefined();
    expect(fake.thread(C, parent.ts as string)[1]?.thread_ts).toBe(parent.ts);
  });

  it("paginates conversations.replies with cursor and limit", async () => {
    const { ts } = await client.chat.postMessage({ channel: C, text: "parent" });
    for (let i = 0; i < 4; i++)
      await client.chat.postMessage({ channel: C, thread_ts: ts as string, text: `r${i}` });
    const texts: string[] = [];
    for await (const page of client.paginate("conversations.replies", {
      channel: C,
      ts,
      limit: 2,
    })) {
      const { messages = [] } = page as ConversationsRepliesResponse;
      texts.push(...messages.map((m) => m.text ?? ""));
    }
    expect(texts).toEqual(["parent", "r0", "r1", "r2", "r3"]);
    expect(fake.callsTo("conversations.replies")).toHaveLength(3);
  });

  it("updates a message by channel and ts, keeping its metadata", async () => {
    const metadata = { event_type: "meeting_notes_job", event_payload: { job_id: "j2" } };
    const { ts } = await client.chat.postMessage({ channel: C, text: "queued", metadata });
    const updated = await client.chat.update({ channel: C, ts: ts as string, text: "done" });
    expect(updated.text).toBe("done");
    expect(fake.messages(C)[0]).toMatchObject({ text: "done", metadata });
    await expect(
      client.chat.update({ channel: C, ts: "1.000001", text: "x" }),
    ).rejects.toMatchObject({
      data: { error: "message_not_found" },
    });
    const link = await client.chat.getPermalink({ channel: C, message_ts: ts as string });
    expect(link.permalink).toBe(
      `https://fake.slack.test/archives/${C}/p${(ts as string).replace(".", "")}`,
    );
  });

  it("refuses what real Slack refuses", async () => {
    const many = Array.from({ length: 51 }, () => ({ type: "divider" }));
    await expect(
      client.chat.postMessage({ channel: C, text: "x", blocks: many }),
    ).rejects.toMatchObject({
      data: { error: "invalid_blocks" },
    });
    await expect(client.chat.postMessage({ channel: "nope", text: "x" })).rejects.toMatchObject({
      data: { error: "channel_not_found" },
    });
    await expect(client.apiCall("chat.unknownThing")).rejects.toMatchObject({
      data: { error: "unknown_method" },
    });
    const anonymous = new WebClient(undefined, {
      slackApiUrl: fake.apiUrl,
      retryConfig: { retries: 0 },
    });
    await expect(anonymous.auth.test()).rejects.toMatchObject({ data: { error: "not_authed" } });
    await expect(client.auth.test({ token: "xoxb-wrong" })).rejects.toMatchObject({
      data: { error: "invalid_auth" },
    });
    fake.knobs.failNext = { method: "chat.postMessage", error: "fatal_error" };
    await expect(client.chat.postMessage({ channel: C, text: "x" })).rejects.toMatchObject({
      data: { error: "fatal_error" },
    });
    await expect(client.chat.postMessage({ channel: C, text: "x" })).resolves.toMatchObject({
      ok: true,
    });
  });
});

describe("an outage (the `outage` knob)", () => {
  it("answers every method with an HTML error page, or not at all, until it is cleared", async () => {
    fake.knobs.outage = { status: 503 };
    await expect(client.auth.test()).rejects.toMatchObject({
      code: "slack_webapi_http_error",
      statusCode: 503,
    });
    fake.knobs.outage = "hang";
    const impatient = new WebClient(fake.botToken, {
      slackApiUrl: fake.apiUrl,
      retryConfig: { retries: 0 },
      // Long enough that a loaded machine sends the call before the client gives up on it.
      timeout: 2_000,
      logLevel: LogLevel.ERROR,
    });
    // Settled as soon as it ends, so the rejection is handled even while the poll still waits.
    const hung = impatient.auth.test().then(
      () => "answered",
      (error: unknown) => String(error),
    );
    await expect.poll(() => fake.callsTo("auth.test").length).toBe(2);
    expect(await hung).toMatch(/timeout/i);
    expect(fake.callsTo("auth.test").map((c) => c.status)).toEqual([503, 0]);
    fake.knobs.outage = undefined;
    await expect(client.auth.test()).resolves.toMatchObject({ ok: true });
  });
});

describe("users, views, rate limits", () => {
  it("answers users.info from registered users, with locale when asked", async () => {
    fake.addUser({ id: "U0ANH", name: "anh", real_name: "Nguyễn Anh", locale: "vi-VN" });
    const res = await client.users.info({ user: "U0ANH", include_locale: true });
    expect(res.user).toMatchObject({
      real_name: "Nguyễn Anh",
      locale: "vi-VN",
      profile: { real_name: "Nguyễn Anh", display_name: "Nguyễn Anh" },
    });
    expect((await client.users.info({ user: "U0ANH" })).user?.locale).toBeUndefined();
    await expect(client.users.info({ user: "U0NOBODY" })).rejects.toMatchObject({
      data: { error: "user_not_found" },
    });
  });

  it("opens and updates a modal, enforcing the title limit", async () => {
    const view = {
      type: "modal" as const,
      callback_id: "speaker_names",
      private_metadata: "job-1",
      title: { type: "plain_text" as const, text: "Name the speakers" },
      blocks: [{ type: "section" as const, text: { type: "mrkdwn" as const, text: "Who?" } }],
    };
    const opened = await client.views.open({ trigger_id: newTriggerId(), view });
    expect(opened.view?.id).toMatch(/^V/);
    expect(opened.view?.private_metadata).toBe("job-1");
    await client.views.update({
      view_id: opened.view?.id as string,
      view: { ...view, private_metadata: "job-2" },
    });
    expect(fake.views.map((v) => v.op)).toEqual(["open", "update"]);
    expect(fake.view(opened.view?.id as string)?.private_metadata).toBe("job-2");
    const long = {
      ...view,
      title: { type: "plain_text" as const, text: "A title far too long for Slack" },
    };
    await expect(
      client.views.open({ trigger_id: newTriggerId(), view: long }),
    ).rejects.toMatchObject({
      data: { error: "invalid_arguments" },
    });
  });

  it("answers 429 with Retry-After, which the WebClient honours before retrying", async () => {
    fake.knobs.rateLimit = { method: "chat.update", count: 1, retryAfter: 1 };
    const { ts } = await client.chat.postMessage({ channel: C, text: "a" });
    const retrying = newClient({ retries: 2, minTimeout: 0 });
    const started = Date.now();
    await retrying.chat.update({ channel: C, ts: ts as string, text: "b" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(fake.callsTo("chat.update").map((c) => c.status)).toEqual([429, 200]);
  });
});

describe("files", () => {
  it("receives filesUploadV2 into a thread: sha256, share and a message with files", async () => {
    const { ts } = await client.chat.postMessage({ channel: C, text: "Notes are ready" });
    const docx = Buffer.from("PK\u0003\u0004 not really a docx, but bytes all the same");
    const res = await client.filesUploadV2({
      channel_id: C,
      thread_ts: ts as string,
      file: docx,
      filename: "meeting-notes.docx",
      title: "Meeting notes",
      initial_comment: "Here is the document",
    });
    expect(res.ok).toBe(true);
    const [upload] = fake.uploads;
    expect(upload).toMatchObject({
      filename: "meeting-notes.docx",
      title: "Meeting notes",
      channel_id: C,
      thread_ts: ts,
      bytes: docx.length,
      length: docx.length,
      sha256: sha256(docx),
      completed: true,
    });
    expect(upload?.content_type).toMatch(/^multipart\/form-data/);
    expect(upload?.data?.equals(docx)).toBe(true);
    const last = fake.thread(C, ts as string).at(-1);
    expect(last).toMatchObject({ text: "Here is the document", thread_ts: ts, upload: true });
    expect(last?.files?.[0]?.id).toBe(upload?.file_id);
    const info = await client.files.info({ file: upload?.file_id as string });
    expect(info.file?.shares?.public?.[C]?.[0]?.thread_ts).toBe(ts);
  });

  it("serves a file only with the bot token; otherwise a 200 HTML login page", async () => {
    const bytes = Buffer.from("ID3 fake mp3 bytes");
    const file = fake.addFile({ name: "standup.mp3", bytes, mimetype: "audio/mpeg", channel: C });
    expect(file).toMatchObject({ filetype: "mp3", size: bytes.length, channels: [C] });
    const url = file.url_private_download;
    expect(url.startsWith(fake.origin)).toBe(true);

    const ok = await fetch(url, { headers: { authorization: `Bearer ${fake.botToken}` } });
    expect(ok.headers.get("content-type")).toBe("audio/mpeg");
    expect(Buffer.from(await ok.arrayBuffer()).equals(bytes)).toBe(true);
    for (const headers of [{}, { authorization: "Bearer xoxb-wrong" }]) {
      const login = await fetch(url, { headers });
      expect(login.status).toBe(200);
      expect(login.headers.get("content-type")).toMatch(/^text\/html/);
      expect(await login.text()).toContain("Sign in");
    }
    expect(fake.downloads.map((d) => d.served)).toEqual([true, false, false]);
    expect(fake.messages(C)[0]).toMatchObject({ subtype: "file_share", user: file.user });
  });

  // Past its 1 MiB reads many times over; the 350 MB video of e2e/prepare-recordings takes
  // the same path at full size.
  it("streams a sparse file from disk, read by read", async () => {
    const size = 32 * 1024 * 1024;
    const path = join(dir, "big.wav");
    writeFileSync(path, "");
    truncateSync(path, size);
    const file = fake.addFile({ name: "big.wav", path });
    const res = await fetch(file.url_private_download, {
      headers: { authorization: `Bearer ${fake.botToken}` },
    });
    expect(res.headers.get("content-length")).toBe(String(size));
    let received = 0;
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) received += chunk.length;
    expect(received).toBe(size);
  });

  it("throttles, delays and truncates downloads on request", async () => {
    const bytes = Buffer.alloc(20_000, 7);
    const file = fake.addFile({ name: "slow.m4a", bytes });
    const auth = { headers: { authorization: `Bearer ${fake.botToken}` } };
    fake.knobs.downloadDelayMs = 100;
    fake.knobs.downloadBytesPerSecond = 100_000;
    const started = Date.now();
    const slow = Buffer.from(await (await fetch(file.url_private_download, auth)).arrayBuffer());
    expect(slow.equals(bytes)).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    fake.reset();
    fake.knobs.truncateDownloadAt = 5_000;
    const cut = await fetch(file.url_private_download, auth);
    expect(cut.headers.get("content-length")).toBe("20000");
    await expect(cut.arrayBuffer()).rejects.toThrow();
  });

  it("can redirect downloads within Slack, where the next hop needs the token too", async () => {
    const file = fake.addFile({ name: "grid.mp4", bytes: "video" });
    fake.knobs.redirectDownloads = "slack";
    const auth = { authorization: `Bearer ${fake.botToken}` };
    const first = await fetch(file.url_private_download, { headers: auth, redirect: "manual" });
    expect(first.status).toBe(302);
    const location = first.headers.get("location") ?? "";
    expect(new URL(location).origin).toBe(fake.origin);
    expect(await (await fetch(location)).text()).toBe(LOGIN_PAGE);
    expect(await (await fetch(location, { headers: auth })).text()).toBe("video");
    expect(fake.downloads.map((d) => [d.origin, d.status, d.served])).toEqual([
      ["slack", 302, false],
      ["slack", 200, false],
      ["slack", 200, true],
    ]);
  });

  it("can redirect downloads to another origin, which never sees the token", async () => {
    const file = fake.addFile({ name: "cdn.mp4", bytes: "video" });
    fake.knobs.redirectDownloads = "cdn";
    const res = await fetch(file.url_private_download, {
      headers: { authorization: `Bearer ${fake.botToken}` },
    });
    expect(await res.text()).toBe("video");
    expect(new URL(res.url).origin).toBe(fake.cdnOrigin);
    expect(fake.downloads.map((d) => [d.origin, d.status])).toEqual([
      ["slack", 302],
      ["cdn", 200],
    ]);
    expect(fake.downloads[1]?.headers.authorization).toBeUndefined();
  });
});

describe("roles and membership", () => {
  it("reports a member's roles with the fields of Slack's published users.info example", async () => {
    const published = (
      await import("../fixtures/slack/users.info.json", { with: { type: "json" } })
    ).default.payload.user;
    fake.addUser({ id: "U0ADMIN01", name: "ada", real_name: "Ada", is_admin: true });
    fake.addUser({ id: "U0GUEST01", name: "gus", real_name: "Gus", is_restricted: true });
    const admin = (await client.users.info({ user: "U0ADMIN01" })).user as Record<string, unknown>;
    for (const key of Object.keys(published).filter((k) => k.startsWith("is_"))) {
      expect(admin, key).toHaveProperty(key);
    }
    expect(admin).toMatchObject({ is_admin: true, is_owner: false, is_restricted: false });
    const guest = (await client.users.info({ user: "U0GUEST01" })).user;
    expect(guest).toMatchObject({
      is_admin: false,
      is_restricted: true,
      is_ultra_restricted: false,
    });
  });

  it("lists a conversation's members page by page, with the bot when it is in", async () => {
    const published = (
      await import("../fixtures/slack/conversations.members.json", { with: { type: "json" } })
    ).default.payload;
    fake.addUser({ id: "U0MEM0001", name: "m1", real_name: "M One" });
    fake.addUser({ id: "U0MEM0002", name: "m2", real_name: "M Two" });
    fake.addChannel({ id: "C0MEMBERS", name: "members", members: ["U0MEM0001", "U0MEM0002"] });
    const first = await client.conversations.members({ channel: "C0MEMBERS", limit: 2 });
    expect(Object.keys(first).filter((k) => k !== "response_metadata")).toEqual(
      expect.arrayContaining(Object.keys(published).filter((k) => k !== "response_metadata")),
    );
    expect(first.members).toEqual(["U0MEM0001", "U0MEM0002"]);
    const cursor = first.response_metadata?.next_cursor ?? "";
    expect(cursor).not.toBe("");
    const second = await client.conversations.members({ channel: "C0MEMBERS", cursor });
    expect(second.members).toEqual([fake.botUserId]);
    expect(second.response_metadata?.next_cursor).toBe("");
    fake.addChannel({ id: "C0NOBOT01", name: "nobot", members: ["U0MEM0001"], is_member: false });
    expect((await client.conversations.members({ channel: "C0NOBOT01" })).members).toEqual([
      "U0MEM0001",
    ]);
    expect((await client.conversations.members({ channel: "C0NOBOT01", limit: 999 })).ok).toBe(
      true,
    );
    await expect(
      client.conversations.members({ channel: "C0NOBOT01", limit: 1000 }),
    ).rejects.toMatchObject({ data: { error: "invalid_limit" } });
  });

  it("refuses an ephemeral message to someone who is not in the conversation", async () => {
    fake.addUser({ id: "U0OUT0001", name: "out", real_name: "Outsider" });
    fake.addChannel({ id: "C0CLOSED1", name: "closed", members: [] });
    await expect(
      client.chat.postEphemeral({ channel: "C0CLOSED1", user: "U0OUT0001", text: "hi" }),
    ).rejects.toMatchObject({ data: { error: "user_not_in_channel" } });
    expect(fake.ephemerals).toHaveLength(0);
  });
});
