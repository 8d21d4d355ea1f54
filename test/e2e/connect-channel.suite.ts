import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ACTIONS, INPUTS, speakerBlock, VIEWS } from "../../src/slack/ids.ts";
import {
  ALICE,
  buttonOn,
  clickButton,
  eventually,
  filledModal,
  noteParts,
  type SlackMode,
  type Stack,
  startStack,
} from "../../support/e2e/stack.ts";
import { HOST } from "../../support/e2e/uninstall-kit.ts";
import {
  appHomeOpenedEvent,
  fileSharedEvent,
  fileShareMessageEvent,
  messageEvent,
  viewSubmissionPayload,
} from "../../support/fake-slack/slack-payloads.ts";
import { recordingBytes } from "../../support/fakes/recording-bytes.ts";

/**
 * A Slack Connect channel another organisation hosts, through the real app. Slack sends its
 * events with the host's team in the envelope's `team_id` and the install in
 * `authorizations` (test/fixtures/slack/slack-connect.json), while a command, a click or a
 * modal from the install's own workspace names that workspace: every one of them is one
 * tenant, the install's. Alice, of the installing workspace, turned automatic notes off in
 * the channel's settings modal, with a glossary as the channel's context.
 */
export function connectChannelJourney(mode: SlackMode): void {
  const CONNECT = "C0CONNECT1";
  const GLOSSARY = "Partner glossary: Quillfeather means the launch";

  let stack: Stack;
  let fill = 10;
  beforeAll(async () => {
    stack = await startStack({}, { mode });
    stack.fake.addChannel({ id: CONNECT, name: "partner-sync", connect: HOST });
  });
  afterAll(() => stack.stop());
  beforeEach(() => stack.emulator.reset());

  /** Delivers an event of the Connect channel as Slack does: the host in the envelope. */
  const inConnect = async (event: Record<string, unknown>) => {
    const sent = await stack.deliver.event(event, { host: HOST });
    expect(sent.acked).toBe(true);
  };

  /** Alice's recording in the channel, posted without any event yet. */
  const posted = (name: string) => {
    fill += 1;
    const file = stack.fake.addFile({ name, bytes: recordingBytes(name, 2048, fill), user: ALICE });
    return { file, message: stack.fake.shareFile(file, { channel: CONNECT, user: ALICE }) };
  };

  /**
   * "@Meeting Notes" said by Alice in the thread of `threadTs`, a microsecond after it (a
   * fresh ts of the same millisecond could equal the parent's, which is no reply).
   */
  const mention = (threadTs: string) => {
    const micros = (BigInt(threadTs.replace(".", "")) + 1n).toString();
    return inConnect(
      messageEvent({
        channel: CONNECT,
        user: ALICE,
        text: `<@${stack.fake.botUserId}> notes please`,
        ts: `${micros.slice(0, -6)}.${micros.slice(-6)}`,
        thread_ts: threadTs,
      }),
    );
  };

  /** "I cannot find that job any more", said to anyone. */
  const notFoundSaid = () => stack.fake.ephemerals.filter((e) => /cannot find/i.test(e.text));

  const submissionsOf = (name: string) =>
    stack.emulator.stats.audioSubmissions.filter((s) => s.filename === name);

  /** Alice saves the channel's settings from its modal (`/meeting-notes settings`). */
  async function saveSettings(): Promise<void> {
    const views = stack.fake.views.length;
    const sent = await stack.deliver.command({
      text: "settings",
      user_id: ALICE,
      channel_id: CONNECT,
    });
    expect(sent.acked).toBe(true);
    const modal = await filledModal(stack, VIEWS.channelSettings);
    expect(stack.fake.views.length).toBeGreaterThan(views);
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
      [INPUTS.context.block]: {
        [INPUTS.context.action]: { type: "plain_text_input", value: GLOSSARY },
      },
    };
    const payload = viewSubmissionPayload({
      callbackId: VIEWS.channelSettings,
      privateMetadata: String(modal?.view.private_metadata),
      values,
      user: ALICE,
      ...(modal === undefined ? {} : { viewId: modal.view_id }),
    });
    expect((await stack.deliver.interaction(payload)).acked).toBe(true);
    await eventually(
      () => stack.fake.ephemerals.filter((e) => e.user === ALICE && e.channel === CONNECT),
      (told) => told.some((e) => /saved/i.test(e.text)),
      { what: "the settings saved" },
    );
  }

  describe(`a Slack Connect channel another organisation hosts (${mode} mode)`, () => {
    beforeAll(async () => saveSettings());

    it("sends no upload to the Note Service where the install's settings turned automatic notes off", async () => {
      const { file, message } = posted("partner-upload.m4a");
      await inConnect(
        fileShareMessageEvent(file, { channel: CONNECT, user: ALICE, ts: message.ts }),
      );
      const other = posted("partner-file-shared.m4a");
      await inConnect(fileSharedEvent(other.file.id, { channel: CONNECT, user: ALICE }));
      await stack.settled();
      expect(submissionsOf("partner-upload.m4a")).toEqual([]);
      expect(submissionsOf("partner-file-shared.m4a")).toEqual([]);
      expect(stack.fake.thread(CONNECT, message.ts)).toHaveLength(1);
      expect(stack.fake.thread(CONNECT, other.message.ts)).toHaveLength(1);
    });

    it("makes notes where asked (@mention) with the channel's own settings", async () => {
      const { message } = posted("partner-mention.m4a");
      await mention(message.ts);
      const [submitted] = await eventually(
        () => submissionsOf("partner-mention.m4a"),
        (s) => s.length > 0,
      );
      expect(submitted).toMatchObject({ contextText: GLOSSARY, languageHint: "en" });
    });

    it("lets the starter of a job asked for there name its speakers", async () => {
      const { message } = posted("partner-names.m4a");
      await mention(message.ts);
      const at = await buttonOn(stack, message.ts, ACTIONS.nameSpeakers, CONNECT);
      await clickButton(stack, ACTIONS.nameSpeakers, at);
      const modal = await filledModal(stack, VIEWS.speakerNames, at.jobId);
      const payload = viewSubmissionPayload({
        callbackId: VIEWS.speakerNames,
        privateMetadata: at.jobId,
        values: {
          [speakerBlock.name("speaker_1")]: { name: { type: "plain_text_input", value: "Mai" } },
          [speakerBlock.name("speaker_2")]: { name: { type: "plain_text_input", value: "Lan" } },
        },
        user: ALICE,
        ...(modal === undefined ? {} : { viewId: modal.view_id }),
      });
      expect((await stack.deliver.interaction(payload)).acked).toBe(true);
      await eventually(
        () => stack.job(at.jobId),
        (job) => job?.stage === "done",
        { what: "the job done" },
      );
      expect(noteParts(stack.fake.thread(CONNECT, message.ts)).length).toBeGreaterThan(0);
      expect(notFoundSaid()).toEqual([]);
    });

    it("lists a job there in /meeting-notes status and App Home", async () => {
      stack.emulator.knobs.pollsToComplete = 100_000;
      const { message } = posted("partner-listed.m4a");
      await mention(message.ts);
      await buttonOn(stack, message.ts, ACTIONS.cancel, CONNECT);
      const responseUrl = stack.fake.responseUrl();
      const status = {
        text: "status",
        user_id: ALICE,
        channel_id: CONNECT,
        response_url: responseUrl,
      };
      expect((await stack.deliver.command(status)).acked).toBe(true);
      const id = responseUrl.slice(responseUrl.lastIndexOf("/") + 1);
      const listed = await eventually(
        () => stack.fake.responseUrlPosts.filter((p) => p.id === id),
        (posts) => posts.length > 0,
      );
      expect(JSON.stringify(listed[0]?.body)).toContain("partner-listed.m4a");
      const views = stack.fake.views.length;
      await stack.deliver.event(appHomeOpenedEvent(ALICE));
      const home = await eventually(
        () => stack.fake.views.slice(views).find((v) => v.op === "publish" && v.user_id === ALICE),
        (v) => v !== undefined,
        { what: "App Home published" },
      );
      expect(JSON.stringify(home?.view)).toContain("partner-listed.m4a");
    });

    it("lets the starter of a job asked for there cancel it", async () => {
      stack.emulator.knobs.pollsToComplete = 100_000;
      const { message } = posted("partner-cancel.m4a");
      await mention(message.ts);
      const at = await buttonOn(stack, message.ts, ACTIONS.cancel, CONNECT);
      await clickButton(stack, ACTIONS.cancel, at);
      await eventually(
        () => stack.job(at.jobId),
        (job) => job?.stage === "canceled",
        { what: "the job canceled" },
      );
      expect(notFoundSaid()).toEqual([]);
    });
  });
}
