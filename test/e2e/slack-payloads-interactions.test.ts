import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ACTIONS, INPUTS, SPEAKER_ACTIONS, speakerBlock, VIEWS } from "../../src/slack/ids.ts";
import {
  EVENT_FIXTURES,
  FAKE_SLACK_FIXTURES,
  INTERACTION_FIXTURES,
  PayloadKit,
  WAYS_IN_FIXTURES,
} from "../../support/e2e/payload-kit.ts";
import {
  ALICE,
  buttonValue,
  CHANNEL,
  eventually,
  SIGNING_SECRET,
  type Stack,
  shareRecording,
  startStack,
  statusMessage,
} from "../../support/e2e/stack.ts";
import {
  newTriggerId,
  sendSigned,
  sendViewSubmission,
} from "../../support/fake-slack/slack-request.ts";
import { FIXTURE_NAMES, recordingBytes } from "../fixtures/slack-payloads/index.ts";

/**
 * Slack's published requests that are not file events — the URL check, the certificate
 * check, App Home, a slash command, a button click, modal submissions with inputs left
 * empty as Slack sends them — through the real app, with what the person sees after.
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

const FORM = "application/x-www-form-urlencoded";

/** Empty inputs by element type, as Slack submits them (view-state-empty-inputs.json). */
const empty = (type: string): Record<string, unknown> => {
  const inputs = kit.object("view-state-empty-inputs") as Record<string, Record<string, unknown>>;
  const state = inputs[type];
  if (state === undefined) throw new Error(`no empty ${type} in the fixture`);
  return state;
};

/** The published view_submission, as a submission of our modal `callbackId`. */
function submission(callbackId: string, privateMetadata: string, values: object) {
  const payload = kit.object("interaction-view_submission", { callbackId, privateMetadata });
  (payload.view as { state: object }).state = { values };
  return payload;
}

describe("requests Slack makes of the request URL", () => {
  it("answers url_verification with its challenge", async () => {
    const body = JSON.stringify(kit.object("url_verification"));
    const answer = await sendSigned(stack.url, SIGNING_SECRET, body, "application/json");
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({
      challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P",
    });
  });

  it("answers ssl_check with 200", async () => {
    const answer = await sendSigned(stack.url, SIGNING_SECRET, kit.form("ssl_check"), FORM);
    expect(answer.status).toBe(200);
  });

  it("publishes the Home tab when someone opens it", async () => {
    await kit.sendEvent(kit.object("event-app_home_opened"));
    const home = await eventually(
      () => stack.fake.views.find((v) => v.op === "publish" && v.user_id === ALICE),
      (v) => v !== undefined,
    );
    expect(home?.view.type).toBe("home");
  });
});

describe("a slash command", () => {
  it("answers a word it does not know, to the person alone", async () => {
    const responseUrl = stack.fake.responseUrl();
    const body = kit.form("command-slash", { command: "/meeting-notes", responseUrl });
    const answer = await sendSigned(stack.url, SIGNING_SECRET, body, FORM);
    expect(answer.status).toBe(200);
    const said = await eventually(
      () => {
        const inAck = (answer.json as { text?: string } | undefined)?.text;
        const posted = stack.fake.responseUrlPosts.find((p) => responseUrl.endsWith(p.id));
        return inAck ?? (posted?.body as { text?: string } | undefined)?.text;
      },
      (text) => text !== undefined,
    );
    expect(said).toContain("I do not know the command");
    expect(said).toContain("Hi");
  });

  it("opens the new-notes modal with the command's trigger when typed alone", async () => {
    // A trigger Slack just issued: the fake refuses one older than 3 s, or one it never issued.
    const trigger = newTriggerId();
    const fields = new URLSearchParams(
      kit.form("command-slash", {
        command: "/meeting-notes",
        responseUrl: stack.fake.responseUrl(),
        trigger,
      }),
    );
    fields.set("text", "");
    const answer = await sendSigned(stack.url, SIGNING_SECRET, fields.toString(), FORM);
    expect(answer.status).toBe(200);
    const opened = await eventually(
      () => stack.fake.views.find((v) => v.op === "open" && v.trigger_id === trigger),
      (v) => v !== undefined,
    );
    expect(opened?.view.callback_id).toBe(VIEWS.newNotes);
    // Opened at once with a loading view of the same modal, then filled in place.
    const filled = await eventually(
      () => stack.fake.views.find((v) => v.op === "update" && v.view_id === opened?.view_id),
      (v) => v !== undefined,
    );
    expect(filled?.view.callback_id).toBe(VIEWS.newNotes);
    expect(JSON.stringify(filled?.view.blocks)).toContain(INPUTS.recording.block);
  });
});

describe("a button click", () => {
  it("changes nothing when it does not come from the job's status message", async () => {
    const { ts } = await shareRecording(stack, "click.m4a", { bytes: recordingBytes("mp4", 2100) });
    // A job waiting for names stays so until someone acts: a change would be the click's.
    const status = await eventually(
      () => statusMessage(stack.thread(ts)),
      (m) => buttonValue(m, ACTIONS.nameSpeakers) !== undefined,
    );
    const jobId = buttonValue(status, ACTIONS.nameSpeakers) ?? "";
    const stage = (await stack.job(jobId))?.stage;
    // The published click comes from an ephemeral message, which is not the status message.
    const payload = kit.object("interaction-block_actions", {
      actionId: ACTIONS.cancel,
      blockId: "actions",
      value: jobId,
      responseUrl: stack.fake.responseUrl(),
    });
    const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    const answer = await sendSigned(stack.url, SIGNING_SECRET, body, FORM);
    expect(answer.status).toBe(200);
    const told = await eventually(
      () => stack.fake.ephemerals.filter((e) => e.user === ALICE && e.channel === CHANNEL),
      (e) => e.length > 0,
    );
    expect(told.map((e) => e.text)).toEqual(["That button does not belong to these notes."]);
    expect(stage).toBe("naming");
    expect((await stack.job(jobId))?.stage).toBe("naming");
  });
});

describe("modal submissions with inputs left empty, as Slack sends them", () => {
  it("names the speakers given and labels the ones left empty", async () => {
    stack.emulator.knobs.speakerCount = 3;
    const { ts } = await shareRecording(stack, "three.m4a", { bytes: recordingBytes("mp4", 2200) });
    const naming = await eventually(
      () => statusMessage(stack.thread(ts)),
      (m) => buttonValue(m, ACTIONS.nameSpeakers) !== undefined,
    );
    const values: Record<string, Record<string, unknown>> = {};
    for (const id of ["speaker_1", "speaker_2", "speaker_3"]) {
      values[speakerBlock.user(id)] = { [SPEAKER_ACTIONS.user]: empty("users_select") };
      values[speakerBlock.name(id)] = { [SPEAKER_ACTIONS.name]: empty("plain_text_input") };
      values[speakerBlock.gender(id)] = { [SPEAKER_ACTIONS.gender]: empty("static_select") };
    }
    values[speakerBlock.name("speaker_2")] = {
      [SPEAKER_ACTIONS.name]: { type: "plain_text_input", value: "Lan" },
    };
    const jobId = buttonValue(naming, ACTIONS.nameSpeakers) ?? "";
    const payload = submission(VIEWS.speakerNames, jobId, values);
    const answer = await sendViewSubmission(stack.url, SIGNING_SECRET, payload);
    expect(answer.status).toBe(200);
    expect(answer.json).toBeUndefined();
    const note = await eventually(
      () => stack.emulator.stats.noteSubmissions,
      (n) => n.length === 1,
    );
    expect(note[0]?.speakerMap).toEqual([
      { speaker_id: "speaker_1", name: "Speaker 1" },
      { speaker_id: "speaker_2", name: "Lan" },
      { speaker_id: "speaker_3", name: "Speaker 3" },
    ]);
  });

  it("starts notes from /meeting-notes with every optional input left empty", async () => {
    const bytes = recordingBytes("mp4", 2300);
    const file = stack.fake.addFile({ name: "planning.m4a", bytes, user: ALICE });
    const values = newNotesValues(file, CHANNEL);
    const metadata = JSON.stringify({ channelId: CHANNEL });
    const answer = await sendViewSubmission(
      stack.url,
      SIGNING_SECRET,
      submission(VIEWS.newNotes, metadata, values),
    );
    expect(answer.status).toBe(200);
    expect(answer.json).toBeUndefined();
    const submitted = await eventually(
      () => stack.emulator.stats.audioSubmissions,
      (s) => s.length === 1,
    );
    expect(submitted[0]).toMatchObject({ filename: "planning.m4a" });
    expect(submitted[0]?.speakers).toBeUndefined();
    expect(submitted[0]?.contextText).toBeUndefined();
    expect(submitted[0]?.languageHint).toBeUndefined();
  });

  it("asks where to post when the destination comes back empty", async () => {
    const file = stack.fake.addFile({
      name: "nowhere.m4a",
      bytes: recordingBytes("mp4", 2400),
      user: ALICE,
    });
    const values = newNotesValues(file, undefined);
    const metadata = JSON.stringify({ channelId: CHANNEL });
    const answer = await sendViewSubmission(
      stack.url,
      SIGNING_SECRET,
      submission(VIEWS.newNotes, metadata, values),
    );
    expect(answer.json).toMatchObject({
      response_action: "errors",
      errors: { [INPUTS.destination.block]: expect.any(String) },
    });
    await kit.settled();
    expect(stack.emulator.stats.audioSubmissions.map((s) => s.filename)).not.toContain(
      "nowhere.m4a",
    );
  });
});

/** The new-notes modal's state: the recording given, every optional input left empty. */
function newNotesValues(file: object, destination: string | undefined) {
  const one = (block: { block: string; action: string }, state: unknown) => ({
    [block.block]: { [block.action]: state },
  });
  return {
    ...one(INPUTS.recording, { type: "file_input", files: [file] }),
    ...one(INPUTS.recentRecording, empty("static_select")),
    ...one(INPUTS.participants, empty("multi_users_select")),
    ...one(INPUTS.extraNames, empty("plain_text_input")),
    ...one(INPUTS.context, empty("plain_text_input")),
    ...one(INPUTS.language, empty("static_select")),
    ...one(INPUTS.template, empty("file_input")),
    ...one(
      INPUTS.destination,
      destination === undefined
        ? empty("conversations_select")
        : { type: "conversations_select", selected_conversation: destination },
    ),
  };
}

it("sent every interaction fixture through the app, and the three files cover every fixture", () => {
  expect([...kit.used].sort()).toEqual([...INTERACTION_FIXTURES].sort());
  // Each fixture is sent by one of the files: slack-payloads.test.ts, this one, ways-in.test.ts;
  // or the fake Slack answers and sends it (FAKE_SLACK_FIXTURES says where).
  expect(
    [
      ...EVENT_FIXTURES,
      ...INTERACTION_FIXTURES,
      ...WAYS_IN_FIXTURES,
      ...FAKE_SLACK_FIXTURES,
    ].sort(),
  ).toEqual([...FIXTURE_NAMES]);
});
