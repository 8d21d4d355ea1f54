import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INPUTS, VIEWS } from "../../src/slack/ids.ts";
import { t } from "../../src/slack/messages/catalog.ts";
import {
  BOB,
  CHANNEL,
  eventually,
  SIGNING_SECRET,
  type Stack,
  startStack,
} from "../../support/e2e/stack.ts";
import { viewSubmissionPayload } from "../../support/fake-slack/slack-payloads.ts";
import { sendViewSubmission } from "../../support/fake-slack/slack-request.ts";
import { recordingBytes } from "../../support/fakes/recording-bytes.ts";

/**
 * DOCX templates given in a channel's settings, through the real app: kept once per
 * channel and content however often they are saved, and refused past 10 MB with a
 * sentence to the person, nothing stored. A template must be the submitter's to use: their
 * own upload, or a file shared in a conversation they are in; anything else is refused on
 * the template input itself, in the settings and the new-notes modals alike.
 */
let stack: Stack;
const templateWrites: string[] = [];
beforeAll(async () => {
  stack = await startStack();
  const store = stack.app.store;
  const set = store.set.bind(store);
  store.set = (ns, key, value, ttl) => {
    if (ns === "templates") templateWrites.push(key);
    return set(ns, key, value, ttl);
  };
});
afterAll(() => stack.stop());

function saveSettings(templateFileId: string, user = BOB) {
  return sendViewSubmission(
    stack.url,
    SIGNING_SECRET,
    viewSubmissionPayload({
      callbackId: VIEWS.channelSettings,
      privateMetadata: JSON.stringify({ channelId: CHANNEL }),
      values: {
        [INPUTS.autoTranscribe.block]: {
          [INPUTS.autoTranscribe.action]: {
            type: "radio_buttons",
            selected_option: { value: "on" },
          },
        },
        [INPUTS.template.block]: {
          [INPUTS.template.action]: { type: "file_input", files: [{ id: templateFileId }] },
        },
      },
      user,
    }),
  );
}

const settingsNow = () => stack.app.jobs.settings.get(stack.fake.teamId, CHANNEL);

describe("channel templates", () => {
  it("stores a template once, however often the settings are saved with it", async () => {
    const bytes = Buffer.concat([
      Buffer.from("PK\u0003\u0004", "latin1"),
      Buffer.alloc(9_000_000, 7),
    ]);
    const first = stack.fake.addFile({ name: "house-style.docx", bytes, user: BOB });
    const second = stack.fake.addFile({ name: "house-style copy.docx", bytes, user: BOB });
    for (const file of [first, second, first]) {
      const before = stack.fake.ephemerals.length;
      expect((await saveSettings(file.id)).json).toBeUndefined();
      await eventually(
        () => stack.fake.ephemerals.length,
        (n) => n > before,
      );
    }
    const { templateId } = await settingsNow();
    expect(templateId).toBeDefined();
    expect(templateWrites).toEqual([templateId]);
    expect(await stack.app.store.get("templates", templateId ?? "")).toMatchObject({
      filename: "house-style.docx",
    });
  });

  it("refuses a template over 10 MB with a sentence, and keeps the current one", async () => {
    const current = (await settingsNow()).templateId;
    const writes = templateWrites.length;
    const huge = stack.fake.addFile({
      name: "huge.docx",
      bytes: Buffer.concat([
        Buffer.from("PK\u0003\u0004", "latin1"),
        Buffer.alloc(11 * 1024 * 1024),
      ]),
      user: BOB,
    });
    const before = stack.fake.ephemerals.length;
    expect((await saveSettings(huge.id)).json).toBeUndefined();
    const told = await eventually(
      () => stack.fake.ephemerals.slice(before).map((e) => e.text),
      (texts) => texts.some((text) => /could not read that Word template/.test(text)),
    );
    expect(told.join(" ")).toMatch(/at most 10 MB/);
    expect(templateWrites.length).toBe(writes);
    expect((await settingsNow()).templateId).toBe(current);
  });
});

describe("templates the submitter may not use", () => {
  const OLIVE = "U0OLIVE01";
  const SECRET = "C0SECRET01";
  const docx = (fill: number) =>
    Buffer.concat([Buffer.from("PK\u0003\u0004", "latin1"), Buffer.alloc(4_000, fill)]);
  const refusal = { [INPUTS.template.block]: t("en", "permission.template") };
  let secret = "";

  beforeAll(() => {
    stack.fake.addUser({ id: OLIVE, name: "olive", real_name: "Olive Out" });
    // A private channel Olive and the bot are in, Bob is not.
    stack.fake.addChannel({ id: SECRET, name: "secret", is_private: true, members: [OLIVE] });
    const file = stack.fake.addFile({ name: "olive-style.docx", bytes: docx(3), user: OLIVE });
    stack.fake.shareFile(file, { channel: SECRET, user: OLIVE });
    secret = file.id;
  });

  const downloadsOf = (fileId: string) => stack.fake.downloads.filter((d) => d.fileId === fileId);

  /** A /meeting-notes submission by Bob: his own recording, the given template. */
  function newNotes(templateFileId: string) {
    const recording = stack.fake.addFile({
      name: `bob-${templateFileId}.m4a`,
      bytes: recordingBytes("bob.m4a", 512, 7),
      user: BOB,
    });
    return sendViewSubmission(
      stack.url,
      SIGNING_SECRET,
      viewSubmissionPayload({
        callbackId: VIEWS.newNotes,
        privateMetadata: JSON.stringify({ channelId: CHANNEL, recent: [] }),
        values: {
          [INPUTS.recording.block]: {
            [INPUTS.recording.action]: { type: "file_input", files: [{ id: recording.id }] },
          },
          [INPUTS.template.block]: {
            [INPUTS.template.action]: { type: "file_input", files: [{ id: templateFileId }] },
          },
          [INPUTS.destination.block]: {
            [INPUTS.destination.action]: {
              type: "conversations_select",
              selected_conversation: CHANNEL,
            },
          },
          [INPUTS.language.block]: {
            [INPUTS.language.action]: { type: "static_select", selected_option: { value: "auto" } },
          },
        },
        user: BOB,
      }),
    );
  }

  it("refuses, in the settings, a template shared only in a private channel the member is not in", async () => {
    const before = await settingsNow();
    const writes = templateWrites.length;
    const messages = stack.fake.messages(CHANNEL).length;
    const answer = await saveSettings(secret);
    expect(answer.json).toEqual({ response_action: "errors", errors: refusal });
    await stack.settled();
    expect(await settingsNow()).toEqual(before);
    expect(templateWrites.length).toBe(writes);
    expect(downloadsOf(secret)).toEqual([]);
    // Nothing announced in the channel either.
    expect(stack.fake.messages(CHANNEL)).toHaveLength(messages);
  });

  it("refuses it in the new-notes modal too, and starts nothing", async () => {
    const threads = stack.fake.messages(CHANNEL).length;
    const answer = await newNotes(secret);
    expect(answer.json).toEqual({ response_action: "errors", errors: refusal });
    await stack.settled();
    expect(stack.fake.messages(CHANNEL)).toHaveLength(threads);
    expect(await stack.app.jobs.service.listByChannel(stack.fake.teamId, CHANNEL)).toEqual([]);
    expect(downloadsOf(secret)).toEqual([]);
  });

  it("takes the submitter's own upload, and a file shared in a channel they are in", async () => {
    const own = stack.fake.addFile({ name: "bob-style.docx", bytes: docx(4), user: BOB });
    expect((await newNotes(own.id)).json).toBeUndefined();
    const [job] = await eventually(
      () => stack.app.jobs.service.listByChannel(stack.fake.teamId, CHANNEL),
      (jobs) => jobs.length > 0,
    );
    expect(job?.options.templateId).toBeDefined();
    const shared = stack.fake.addFile({ name: "olive-public.docx", bytes: docx(5), user: OLIVE });
    stack.fake.shareFile(shared, { channel: CHANNEL, user: OLIVE });
    const before = stack.fake.ephemerals.length;
    expect((await saveSettings(shared.id)).json).toBeUndefined();
    await eventually(
      () => stack.fake.ephemerals.length,
      (n) => n > before,
    );
    const { templateId } = await settingsNow();
    expect(await stack.app.store.get("templates", templateId ?? "")).toMatchObject({
      filename: "olive-public.docx",
    });
  });
});
