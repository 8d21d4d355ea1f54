import { createHash } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ACTIONS } from "../../src/slack/ids.ts";
import { DM, EVENT_FIXTURES, PayloadKit } from "../../support/e2e/payload-kit.ts";
import {
  ALICE,
  buttonValue,
  CHANNEL,
  eventually,
  SIGNING_SECRET,
  type Stack,
  startStack,
  statusMessage,
} from "../../support/e2e/stack.ts";
import { blockActionPayload } from "../../support/fake-slack/slack-payloads.ts";
import { sendAction } from "../../support/fake-slack/slack-request.ts";
import { recordingBytes } from "../fixtures/slack-payloads/index.ts";

/**
 * Every payload in test/fixtures/slack-payloads — Slack's own, from its docs and the
 * official SDKs' tests — sent through the real app, and what a person in Slack would see
 * afterwards. The fake Slack delivers the events of the bot's own posts and uploads too.
 * Interactions (commands, buttons, modals) are in slack-payloads-interactions.test.ts.
 */
let stack: Stack;
let kit: PayloadKit;
beforeAll(async () => {
  stack = await startStack({}, { deliverEvents: true });
  kit = new PayloadKit(stack);
});
afterAll(async () => {
  await stack.stop();
});
beforeEach(() => stack.emulator.reset());

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

interface SharedFile {
  id: string;
  name: string;
  size: number;
  url_private: string;
  url_private_download: string;
}

/** Sends a published file_share delivery and returns its event and first file. */
async function deliverShare(name: string, options: { files?: boolean } = {}) {
  const envelope = kit.object(name);
  const event = envelope.event as Record<string, unknown> & { ts: string; channel: string };
  kit.registerShare(event, options);
  await kit.sendEnvelope(envelope);
  const [file] = event.files as SharedFile[];
  if (file === undefined) throw new Error(`${name} shares no file`);
  return { event, file };
}

/** Waits for the job of a share and the Note Service submission of its recording. */
async function jobOf(ts: string, file: SharedFile, container: "mp3" | "mp4") {
  const status = await eventually(
    () => statusMessage(stack.thread(ts)),
    (m) => buttonValue(m, ACTIONS.nameSpeakers) !== undefined,
  );
  const digest = sha256(recordingBytes(container, file.size));
  const submission = await eventually(
    () => stack.emulator.stats.audioSubmissions.find((s) => s.sha256 === digest),
    (s) => s !== undefined,
  );
  const downloads = stack.fake.downloads.filter((d) => d.fileId === file.id);
  return { status, submission, downloads };
}

describe("recordings as Slack delivers them", () => {
  it("transcribes an mp3 from the original, not from the transcoded preview url_private names", async () => {
    const { event, file } = await deliverShare("event-message-file_share-mp3");
    const { submission, downloads } = await jobOf(event.ts, file, "mp3");
    expect(downloads.map((d) => d.path)).toEqual([new URL(file.url_private_download).pathname]);
    expect(submission?.filename).toMatch(/\.mp3$/);
    expect(kit.botReplies(CHANNEL, event.ts)).toEqual([]);
  });

  it("transcribes an mp4 video from the original as well", async () => {
    const { event, file } = await deliverShare("event-message-file_share-mp4");
    const { downloads } = await jobOf(event.ts, file, "mp4");
    expect(downloads.map((d) => d.path)).toEqual([new URL(file.url_private_download).pathname]);
  });

  it("transcribes Slack audio and video clips", async () => {
    for (const name of [
      "event-message-file_share-slack_audio-clip",
      "event-message-file_share-slack_video-clip",
    ]) {
      const { event, file } = await deliverShare(name);
      const { downloads } = await jobOf(event.ts, file, "mp4");
      expect(
        downloads.map((d) => d.path),
        name,
      ).toEqual([new URL(file.url_private_download).pathname]);
      expect(
        stack.fake.downloads.some((d) => d.path.startsWith("/files-tmb/")),
        name,
      ).toBe(false);
    }
  });

  it("takes a file_share message whose bot_id is null, as Slack's own example writes it", async () => {
    // https://api.slack.com/events/message/file_share shows "bot_id": null on a person's
    // upload; the mp3 delivery is the same message with that field as the docs write it.
    const envelope = kit.object("event-message-file_share-mp3");
    const event = envelope.event as Record<string, unknown> & { ts: string };
    event.bot_id = null;
    kit.registerShare(event);
    await kit.sendEnvelope(envelope);
    const [file] = event.files as SharedFile[];
    if (file === undefined) throw new Error("no file");
    const { status } = await jobOf(event.ts, file, "mp3");
    expect(status).toBeDefined();
  });

  it("starts one job from the file_share message of an upload, none from its file_shared (no text, no read)", async () => {
    const bytes = recordingBytes("mp4", 3000);
    const file = stack.fake.addFile({ name: "standup.m4a", bytes, user: ALICE, channel: CHANNEL });
    const share = stack.fake.messages(CHANNEL).find((m) => m.files?.[0]?.id === file.id);
    if (share === undefined) throw new Error("the fake did not share the file");
    const reads = () => stack.fake.callsTo("conversations.replies").length;
    const before = reads();
    await kit.sendEnvelope(kit.object("event-file_shared", { file: file.id }));
    await kit.settled();
    const digest = sha256(bytes);
    const submitted = () =>
      stack.emulator.stats.audioSubmissions.filter((s) => s.sha256 === digest);
    expect(submitted()).toEqual([]);
    expect(reads()).toBe(before);
    stack.fake.deliverShare(share);
    await jobOf(share.ts, { ...file, size: 3000 }, "mp4");
    await kit.settled();
    expect(submitted()).toHaveLength(1);
    expect(stack.thread(share.ts).filter((m) => statusMessage([m]) !== undefined)).toHaveLength(1);
    expect(reads()).toBe(before);
  });
});

describe("files that are not recordings", () => {
  it("says nothing about a shared image, and does not download it", async () => {
    const { event, file } = await deliverShare("event-message-file_share-image");
    await kit.settled();
    expect(kit.botReplies(CHANNEL, event.ts)).toEqual([]);
    expect(stack.fake.downloads.filter((d) => d.fileId === file.id)).toEqual([]);
  });

  it("says nothing about a snippet or a canvas, shared by a message or by the fake's helpers", async () => {
    const snippet = kit.object("file-snippet");
    const canvas = kit.object("file-canvas");
    const shared = [kit.shareOf([snippet]), kit.shareOf([canvas])];
    for (const envelope of shared) {
      kit.registerShare(envelope.event as Record<string, unknown>);
      await kit.sendEnvelope(envelope);
    }
    const helpers = [
      stack.fake.shareSnippet({ channel: CHANNEL, user: ALICE, content: "SELECT 1;\n" }),
      stack.fake.shareCanvas({ channel: CHANNEL, user: ALICE, title: "Retro notes" }),
    ];
    await kit.settled();
    const threads = [
      ...shared.map((e) => String((e.event as { ts: string }).ts)),
      ...helpers.map((h) => h.message.ts),
    ];
    for (const ts of threads) expect(kit.botReplies(CHANNEL, ts), ts).toEqual([]);
    const ids = [snippet.id, canvas.id, ...helpers.map((h) => h.file.id)];
    expect(stack.fake.downloads.filter((d) => ids.includes(d.fileId))).toEqual([]);
  });

  it("answers about an image someone sends it in a direct message", async () => {
    // Issue 11: a reply is due "for any file given through /meeting-notes or a DM with the
    // bot". Slack's published example is such a DM (channel_type "im"), without the
    // "file_share" subtype its page documents.
    const event = kit.object("event-message-file_share-image-in-dm") as { ts: string };
    kit.registerShare(event);
    await kit.sendEvent(event);
    const reply = await eventually(
      () => kit.botReplies(DM, event.ts),
      (r) => r.length > 0,
      3000,
    );
    expect(reply[0]?.text).toMatch(/^ghostrap\.png is not a recording I can use/);
  });
});

describe("files Slack will not show the bot", () => {
  it("says it cannot read a file hidden by the plan's limit, or deleted, never by its id", async () => {
    const history = kit.object("file-hidden_by_limit") as { messages: { files: object[] }[] };
    const hidden = history.messages[0]?.files[0] as Record<string, unknown>;
    const deleted = kit.object("file-tombstone");
    for (const file of [hidden, deleted]) {
      const envelope = kit.shareOf([file]);
      const event = envelope.event as { ts: string };
      kit.registerShare(envelope.event as Record<string, unknown>);
      await kit.sendEnvelope(envelope);
      const reply = await eventually(
        () => kit.botReplies(CHANNEL, event.ts),
        (r) => r.length > 0,
      );
      expect(reply).toHaveLength(1);
      expect(reply[0]?.text).toMatch(/^I can't read the file shared here/);
      expect(reply[0]?.text).not.toContain(String(file.id));
    }
    expect(stack.fake.downloads.filter((d) => d.fileId === hidden.id)).toEqual([]);
  });

  it("says it cannot read a Slack Connect file whose files.info fails, never by its id", async () => {
    const { event, file } = await deliverShare("event-message-file_share-slack-connect-stub", {
      files: false,
    });
    const reply = await eventually(
      () => kit.botReplies(DM, event.ts),
      (r) => r.length > 0,
    );
    expect(reply).toHaveLength(1);
    expect(reply[0]?.text).toMatch(/^I can't read the file shared here/);
    expect(reply[0]?.text).not.toContain(file.id);
    const infos = stack.fake.callsTo("files.info").filter((c) => c.args.file === file.id);
    expect(infos.map((c) => c.error)).toContain("file_not_found");
  });

  it("transcribes a Slack Connect file once files.info describes it", async () => {
    const envelope = kit.object("event-message-file_share-slack-connect-stub");
    const event = envelope.event as { ts: string; files: { id: string }[] };
    const id = event.files[0]?.id ?? "";
    const bytes = recordingBytes("mp4", 5000);
    stack.fake.addFile({ id, name: "partner-call.m4a", bytes, user: "U0PARTNER1", channel: DM });
    kit.registerShare(envelope.event as Record<string, unknown>, { files: false });
    await kit.sendEnvelope(envelope);
    await eventually(
      () => statusMessage(stack.fake.thread(DM, event.ts)),
      (m) => m !== undefined,
    );
    const digest = sha256(bytes);
    await eventually(
      () => stack.emulator.stats.audioSubmissions.filter((s) => s.sha256 === digest),
      (s) => s.length === 1,
    );
  });
});

describe("never about itself", () => {
  it("ignores a message event posted by its own bot", async () => {
    const envelope = kit.object("event-message-bot");
    const event = envelope.event as { ts: string };
    stack.fake.addMessage({ channel: CHANNEL, user: stack.fake.botUserId, ts: event.ts });
    await kit.sendEnvelope(envelope);
    await kit.settled();
    expect(stack.thread(event.ts)).toHaveLength(1);
  });

  it("after a delivered note, the events Slack sends for its posts and DOCX start nothing", async () => {
    const bytes = recordingBytes("mp4", 4200);
    const file = stack.fake.addFile({ name: "weekly.m4a", bytes, user: ALICE });
    const message = stack.fake.shareFile(file, { channel: CHANNEL, user: ALICE });
    stack.fake.deliverShare(message);
    const naming = await eventually(
      () => statusMessage(stack.thread(message.ts)),
      (m) => buttonValue(m, ACTIONS.skipNaming) !== undefined,
    );
    await sendAction(
      stack.url,
      SIGNING_SECRET,
      blockActionPayload({
        actionId: ACTIONS.skipNaming,
        value: buttonValue(naming, ACTIONS.skipNaming) ?? "",
        user: ALICE,
        channel: CHANNEL,
        messageTs: naming?.ts ?? "",
      }),
    );
    await eventually(
      () => statusMessage(stack.thread(message.ts)),
      (m) => buttonValue(m, ACTIONS.regenerate) !== undefined,
    );
    const docx = await eventually(
      () =>
        stack.thread(message.ts).find((m) => m.files?.length && m.user === stack.fake.botUserId),
      (m) => m !== undefined,
    );
    const docxId = docx?.files?.[0]?.id;
    await stack.fake.deliveriesSettled();
    const own = stack.fake.deliveries.filter((d) =>
      JSON.stringify(d.event).includes(String(docxId)),
    );
    expect(own.map((d) => [d.event.type, d.event.user_id ?? d.event.user, d.status])).toEqual([
      ["file_shared", stack.fake.botUserId, 200],
      ["message", stack.fake.botUserId, 200],
    ]);
    const before = stack.thread(message.ts).length;
    await kit.settled();
    expect(stack.thread(message.ts)).toHaveLength(before);
    expect(stack.fake.downloads.filter((d) => d.fileId === docxId)).toEqual([]);
    expect(stack.fake.callsTo("files.info").filter((c) => c.args.file === docxId)).toEqual([]);
    const digest = sha256(bytes);
    expect(stack.emulator.stats.audioSubmissions.filter((s) => s.sha256 === digest)).toHaveLength(
      1,
    );
  });
});

it("sent every event fixture through the app", () => {
  expect([...kit.used].sort()).toEqual([...EVENT_FIXTURES].sort());
});
