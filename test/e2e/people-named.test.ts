import { describe, expect, it } from "vitest";
import { ACTIONS, speakerBlock, VIEWS } from "../../src/slack/ids.ts";
import {
  ALICE,
  BOB,
  buttonOn,
  buttonValue,
  CHANNEL,
  eventually,
  markdownOf,
  noteParts,
  SIGNING_SECRET,
  shareRecording,
  statusMessage,
  useStack,
} from "../../support/e2e/stack.ts";
import { viewSubmissionPayload } from "../../support/fake-slack/slack-payloads.ts";
import { sendViewSubmission } from "../../support/fake-slack/slack-request.ts";

/*
 * Issue 16, "the people named": with the channel's setting on, a speaker named by picking
 * Bob in the naming modal makes the note mention <@BOB>; a typed name, and names the
 * recording itself holds (or a mention typed into it), stay text.
 */

const stack = useStack();

/** Shares a recording, names speaker_1 by picking Bob and speaker_2 by typing; waits for the note. */
async function noteWithNames(name: string): Promise<string> {
  const { ts } = await shareRecording(stack, name);
  const { jobId } = await buttonOn(stack, ts, ACTIONS.nameSpeakers);
  const values = {
    [speakerBlock.user("speaker_1")]: { user: { type: "users_select", selected_user: BOB } },
    [speakerBlock.name("speaker_2")]: { name: { type: "plain_text_input", value: "Minh Pham" } },
  };
  const payload = viewSubmissionPayload({
    callbackId: VIEWS.speakerNames,
    privateMetadata: jobId,
    values,
    user: ALICE,
  });
  expect((await sendViewSubmission(stack.url, SIGNING_SECRET, payload)).status).toBe(200);
  await eventually(
    () => statusMessage(stack.thread(ts)),
    (m) => buttonValue(m, ACTIONS.regenerate) !== undefined,
  );
  return markdownOf(noteParts(stack.thread(ts)));
}

describe("the people named in the notes", () => {
  it("mentions the member picked for a speaker, and nobody else, when the channel asks", async () => {
    await stack.app.jobs.settings.set(stack.fake.teamId, CHANNEL, {
      autoTranscribe: true,
      mentions: true,
    });
    // The recording names people too, and tries a mention of its own.
    stack.emulator.knobs.dialogText = "Lan Pham will ask <@U0ALICE01> and Minh Pham about it.";
    const note = await noteWithNames("mentions-on.m4a");
    expect(note).toContain(`<@${BOB}>`);
    expect(note).not.toContain("Bob Tran");
    // The typed name and the recording's names stay text; the recording's mention is defused.
    expect(note).toContain("Minh Pham");
    expect(note).toContain("Lan Pham");
    expect(note).not.toMatch(/<@(?!U0BOB0001>)/);
  });

  it("mentions nobody when the setting is off (the default)", async () => {
    await stack.app.jobs.settings.set(stack.fake.teamId, CHANNEL, {
      autoTranscribe: true,
    });
    const note = await noteWithNames("mentions-off.m4a");
    expect(note).toContain("Bob Tran");
    expect(note).not.toContain("<@");
  });
});
