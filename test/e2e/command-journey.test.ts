import { beforeEach, describe, expect, it } from "vitest";
import { ACTIONS, INPUTS, VIEWS } from "../../src/slack/ids.ts";
import {
  ALICE,
  BOB,
  buttonValue,
  CHANNEL,
  eventually,
  noteParts,
  SIGNING_SECRET,
  statusMessage,
  useStack,
} from "../../support/e2e/stack.ts";
import {
  appHomeOpenedEvent,
  blockActionPayload,
  viewSubmissionPayload,
} from "../../support/fake-slack/slack-payloads.ts";
import {
  sendAction,
  sendCommand,
  sendEvent,
  sendViewSubmission,
} from "../../support/fake-slack/slack-request.ts";
import { recordingBytes } from "../../support/fakes/recording-bytes.ts";

const stack = useStack();
beforeEach(() => stack.emulator.reset());

function command(text: string, user = ALICE) {
  return sendCommand(stack.url, SIGNING_SECRET, {
    text,
    user_id: user,
    channel_id: CHANNEL,
    team_id: stack.fake.teamId,
    response_url: stack.fake.responseUrl(),
  });
}

/** Where a reply went: in the ack's body, or posted to the response_url afterwards. */
type Reply = { via: "ack" | "response_url"; body: string };

/** Runs a subcommand and returns the ephemeral reply, wherever the bot put it. */
async function replyOf(text: string, user = ALICE): Promise<Reply> {
  const before = stack.fake.responseUrlPosts.length;
  const answer = await command(text, user);
  expect(answer.status).toBe(200);
  if (answer.body !== "") {
    expect(answer.json).toMatchObject({ response_type: "ephemeral" });
    // One answer, not two: nothing more once the listener has finished.
    await stack.settled();
    expect(stack.fake.responseUrlPosts.length).toBe(before);
    return { via: "ack", body: answer.body };
  }
  const posts = await eventually(
    () => stack.fake.responseUrlPosts,
    (p) => p.length > before,
  );
  const body = posts[before]?.body;
  expect(body).toMatchObject({ response_type: "ephemeral" });
  return { via: "response_url", body: JSON.stringify(body) };
}

async function reply(text: string): Promise<string> {
  return (await replyOf(text)).body;
}

describe("/meeting-notes", () => {
  it("opens the modal and takes a recording from file_input with participants as speaker hints", async () => {
    const views = stack.fake.views.length;
    expect((await command("")).status).toBe(200);
    const opened = await eventually(
      () => stack.fake.views.slice(views),
      (v) => v.length > 0,
    );
    expect(opened[0]?.view.callback_id).toBe(VIEWS.newNotes);
    // Opened at once with a loading view (nothing to submit), then filled in place.
    expect(opened[0]?.op).toBe("open");
    expect(opened[0]?.view).not.toHaveProperty("submit");
    const filled = await eventually(
      () => stack.fake.views.find((v) => v.op === "update" && v.view_id === opened[0]?.view_id),
      (v) => v !== undefined,
    );
    expect(filled?.view.callback_id).toBe(VIEWS.newNotes);
    const privateMetadata = String(filled?.view.private_metadata);

    const file = stack.fake.addFile({
      name: "board-meeting.m4a",
      bytes: recordingBytes("board-meeting.m4a", 2048, 1),
      user: ALICE,
    });
    const values = {
      [INPUTS.recording.block]: {
        [INPUTS.recording.action]: { type: "file_input", files: [{ id: file.id }] },
      },
      [INPUTS.participants.block]: {
        [INPUTS.participants.action]: { type: "multi_users_select", selected_users: [ALICE, BOB] },
      },
      [INPUTS.extraNames.block]: {
        [INPUTS.extraNames.action]: { type: "plain_text_input", value: "Chi Vo" },
      },
      [INPUTS.context.block]: {
        [INPUTS.context.action]: { type: "plain_text_input", value: "Board agenda" },
      },
      [INPUTS.language.block]: {
        [INPUTS.language.action]: { type: "static_select", selected_option: { value: "vi" } },
      },
      [INPUTS.destination.block]: {
        [INPUTS.destination.action]: {
          type: "conversations_select",
          selected_conversation: CHANNEL,
        },
      },
    };
    const answer = await sendViewSubmission(
      stack.url,
      SIGNING_SECRET,
      viewSubmissionPayload({ callbackId: VIEWS.newNotes, privateMetadata, values, user: ALICE }),
    );
    expect(answer.status).toBe(200);
    const submission = await eventually(
      () => stack.emulator.stats.audioSubmissions,
      (s) => s.length === 1,
    );
    expect(submission[0]).toMatchObject({
      filename: "board-meeting.m4a",
      contextText: "Board agenda",
      languageHint: "vi",
      speakers: [{ name: "Alice Nguyen" }, { name: "Bob Tran" }, { name: "Chi Vo" }],
    });
    const parent = stack.fake.messages(CHANNEL).find((m) => m.text.includes("board-meeting.m4a"));
    expect(parent?.bot_id).toBeDefined();
    const { jobId, ts } = await eventually(
      async () => {
        const status = statusMessage(stack.thread(parent?.ts ?? ""));
        return { jobId: buttonValue(status, ACTIONS.skipNaming), ts: status?.ts };
      },
      (s) => s.jobId !== undefined,
    );
    const skip = blockActionPayload({
      actionId: ACTIONS.skipNaming,
      value: jobId ?? "",
      user: ALICE,
      channel: CHANNEL,
      messageTs: ts ?? "",
    });
    await sendAction(stack.url, SIGNING_SECRET, skip);
    await eventually(
      () => noteParts(stack.thread(parent?.ts ?? "")),
      (p) => p.length > 0,
    );
  });

  it("shows errors in the modal when no recording was given", async () => {
    const values = {
      [INPUTS.destination.block]: {
        [INPUTS.destination.action]: {
          type: "conversations_select",
          selected_conversation: CHANNEL,
        },
      },
    };
    const answer = await sendViewSubmission(
      stack.url,
      SIGNING_SECRET,
      viewSubmissionPayload({
        callbackId: VIEWS.newNotes,
        privateMetadata: JSON.stringify({ channelId: CHANNEL }),
        values,
        user: ALICE,
      }),
    );
    expect(answer.json).toMatchObject({
      response_action: "errors",
      errors: { [INPUTS.recording.block]: expect.stringMatching(/recording/i) },
    });
  });

  it("answers help, status and an unknown subcommand only to the person who asked", async () => {
    expect(await reply("help")).toMatch(/settings/);
    expect(await reply("status")).toMatch(/board-meeting\.m4a/);
    expect(await reply("Dance")).toMatch(/Dance/);
  });

  it("answers help in the ack once it knows the person's locale, before that via response_url", async () => {
    const carol = stack.fake.addUser({
      id: "U0CAROL01",
      name: "carol",
      real_name: "Carol",
      locale: "vi-VN",
    });
    const first = await replyOf("help", carol.id);
    expect(first.via).toBe("response_url");
    expect(first.body).toMatch(/ngay trong Slack/);
    const second = await replyOf("help", carol.id);
    expect(second.via).toBe("ack");
    expect(second.body).toMatch(/ngay trong Slack/);
    // Work that reads the store always goes by response_url, after an empty ack.
    expect((await replyOf("status", carol.id)).via).toBe("response_url");
  });

  it("saves channel settings, and an upload in a channel that turned them off is left alone", async () => {
    const views = stack.fake.views.length;
    await command("settings");
    const opened = await eventually(
      () => stack.fake.views.slice(views),
      (v) => v.length > 0,
    );
    const settingsView = opened[0];
    if (settingsView === undefined) throw new Error("no settings modal");
    expect(settingsView.view.callback_id).toBe(VIEWS.channelSettings);
    const values = {
      [INPUTS.autoTranscribe.block]: {
        [INPUTS.autoTranscribe.action]: {
          type: "radio_buttons",
          selected_option: { value: "off" },
        },
      },
      [INPUTS.language.block]: {
        [INPUTS.language.action]: { type: "static_select", selected_option: { value: "en" } },
      },
    };
    await sendViewSubmission(
      stack.url,
      SIGNING_SECRET,
      viewSubmissionPayload({
        callbackId: VIEWS.channelSettings,
        privateMetadata: String(settingsView.view.private_metadata),
        values,
        user: ALICE,
      }),
    );
    await eventually(
      () => stack.app.jobs.settings.get(stack.fake.teamId, CHANNEL),
      (s) => s.autoTranscribe === false,
    );
    expect(await stack.app.jobs.settings.get(stack.fake.teamId, CHANNEL)).toMatchObject({
      autoTranscribe: false,
      languageHint: "en",
    });
    await stack.app.jobs.settings.set(stack.fake.teamId, CHANNEL, {
      autoTranscribe: true,
    });
  });

  it("publishes App Home with the person's jobs and links to their threads", async () => {
    await sendEvent(stack.url, SIGNING_SECRET, appHomeOpenedEvent(ALICE), {
      teamId: stack.fake.teamId,
    });
    const home = await eventually(
      () => stack.fake.views.filter((v) => v.op === "publish" && v.user_id === ALICE).at(-1),
      (v) => v !== undefined,
    );
    const text = JSON.stringify(home?.view);
    expect(text).toContain("board-meeting.m4a");
    expect(text).toContain("https://fake.slack.test/archives/");
  });
});
