import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INPUTS, VIEWS } from "../../src/slack/ids.ts";
import { viewSubmissionPayload } from "../fakes/slack/slack-payloads.ts";
import { sendViewSubmission } from "../fakes/slack/slack-request.ts";
import { BOB, CHANNEL, eventually, SIGNING_SECRET, type Stack, startStack } from "./stack.ts";

/**
 * DOCX templates given in a channel's settings, through the real app: kept once per
 * channel and content however often they are saved, and refused past 10 MB with a
 * sentence to the person, nothing stored.
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

function saveSettings(templateFileId: string) {
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
      user: BOB,
    }),
  );
}

const settingsNow = () => stack.app.jobs.service.getChannelSettings(stack.fake.teamId, CHANNEL);

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
