import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ACTIONS, INPUTS, speakerBlock, VIEWS } from "../../src/slack/ids.ts";
import type { SlackMode } from "../../support/e2e/stack.ts";
import {
  ALICE,
  BOB,
  buttonOn,
  CHANNEL,
  clickButton,
  eventually,
  type JobButton,
  noteParts,
  SIGNING_SECRET,
  type Stack,
  shareRecording,
  startStack,
} from "../../support/e2e/stack.ts";
import {
  blockActionPayload,
  viewSubmissionPayload,
} from "../../support/fake-slack/slack-payloads.ts";
import { sendCommand, sendViewSubmission } from "../../support/fake-slack/slack-request.ts";
import { recordingBytes } from "../../support/fakes/recording-bytes.ts";
import { removedStarterJourney } from "./removed-starter.suite.ts";

/**
 * Who may do what, through the real app: Alice starts jobs; Bob is a member; Ada is a
 * workspace admin; Gus is a guest; Olive is in another channel only. Everyone refused
 * hears who can do it, privately, and nothing changes.
 */
export function permissionsJourney(mode: SlackMode): void {
  const ADA = "U0ADA0001";
  const GUS = "U0GUS0001";
  const OLIVE = "U0OLIVE01";
  const ELSEWHERE = "C0ELSEWHR";
  const NO_BOT = "C0NOBOT01";

  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({}, { mode });
    stack.fake.addUser({ id: ADA, name: "ada", real_name: "Ada Admin", is_admin: true });
    stack.fake.addUser({ id: GUS, name: "gus", real_name: "Gus Guest", is_restricted: true });
    stack.fake.addUser({ id: OLIVE, name: "olive", real_name: "Olive Out" });
    stack.fake.addChannel({ id: CHANNEL, name: "weekly-sync", members: [ALICE, BOB, ADA, GUS] });
    stack.fake.addChannel({ id: ELSEWHERE, name: "elsewhere", members: [OLIVE, ALICE] });
    stack.fake.addChannel({ id: NO_BOT, name: "no-bot", members: [ALICE, BOB], is_member: false });
  });
  afterAll(() => stack.stop());
  beforeEach(() => stack.emulator.reset());

  const upload = (name: string) => shareRecording(stack, name);

  /** The next ephemeral message for `user` after `from`. */
  async function toldTo(user: string, from: number) {
    const told = await eventually(
      () => stack.fake.ephemerals.slice(from).filter((e) => e.user === user),
      (e) => e.length > 0,
    );
    return told[0]?.text ?? "";
  }

  /**
   * What a modal opened after `from` says, once it says something: a modal opens at once (a
   * loading view) and a refusal is then shown in it, without a single input.
   */
  async function shownInModal(from: number) {
    const records = await eventually(
      () => stack.fake.views.slice(from).filter((v) => v.op === "update"),
      (v) => v.length > 0,
    );
    return JSON.stringify(records.map((r) => r.view.blocks));
  }

  /** Whether a view record since `from` asked for anything (an input block). */
  function inputsShownSince(from: number): boolean {
    return stack.fake.views
      .slice(from)
      .some((v) => JSON.stringify(v.view.blocks ?? []).includes('"type":"input"'));
  }

  describe(`job buttons (${mode} mode)`, () => {
    it("refuses Bob's Cancel on Alice's job with a private sentence, and the job goes on", async () => {
      const { ts } = await upload("bob-cancels.m4a");
      const { statusTs, jobId } = await buttonOn(stack, ts, ACTIONS.nameSpeakers);
      const from = stack.fake.ephemerals.length;
      await clickButton(stack, ACTIONS.cancel, { jobId, statusTs }, BOB);
      expect(await toldTo(BOB, from)).toMatch(/Only the person who started .* admin, can cancel/);
      await stack.settled();
      expect((await stack.job(jobId))?.stage).toBe("naming");
      // Alice can still finish it.
      await clickButton(stack, ACTIONS.skipNaming, { jobId, statusTs }, ALICE);
      await buttonOn(stack, ts, ACTIONS.regenerate);
    });

    it("lets an admin cancel anyone's job", async () => {
      const { ts } = await upload("admin-cancels.m4a");
      const { statusTs, jobId } = await buttonOn(stack, ts, ACTIONS.nameSpeakers);
      await clickButton(stack, ACTIONS.cancel, { jobId, statusTs }, ADA);
      await eventually(
        async () => (await stack.job(jobId))?.stage,
        (stage) => stage === "canceled",
      );
      const job = await stack.job(jobId);
      expect(job?.stage === "canceled" ? job.canceledBy : undefined).toBe(ADA);
    });

    it("lets Bob, a member, name the speakers of Alice's job", async () => {
      const { ts } = await upload("bob-names.m4a");
      const { statusTs, jobId } = await buttonOn(stack, ts, ACTIONS.nameSpeakers);
      const views = stack.fake.views.length;
      await clickButton(stack, ACTIONS.nameSpeakers, { jobId, statusTs }, BOB);
      const opened = await eventually(
        () => stack.fake.views.slice(views),
        (v) => v.length > 0,
      );
      expect(opened[0]?.view.callback_id).toBe(VIEWS.speakerNames);
      const values = {
        [speakerBlock.name("speaker_1")]: { name: { type: "plain_text_input", value: "Lan" } },
        [speakerBlock.name("speaker_2")]: { name: { type: "plain_text_input", value: "Minh" } },
      };
      const answer = await sendViewSubmission(
        stack.url,
        SIGNING_SECRET,
        viewSubmissionPayload({
          callbackId: VIEWS.speakerNames,
          privateMetadata: jobId,
          values,
          user: BOB,
        }),
      );
      expect(answer.json).toBeUndefined();
      await buttonOn(stack, ts, ACTIONS.regenerate);
      expect(stack.emulator.stats.noteSubmissions.at(-1)?.speakerMap).toEqual([
        { speaker_id: "speaker_1", name: "Lan" },
        { speaker_id: "speaker_2", name: "Minh" },
      ]);
    });

    it("refuses a guest's Name speakers and Skip, and their forged names submission", async () => {
      const { ts } = await upload("guest-names.m4a");
      const { statusTs, jobId } = await buttonOn(stack, ts, ACTIONS.nameSpeakers);
      const views = stack.fake.views.length;
      const from = stack.fake.ephemerals.length;
      await clickButton(stack, ACTIONS.nameSpeakers, { jobId, statusTs }, GUS);
      expect(await shownInModal(views)).toMatch(/not a guest, can name the speakers/);
      await clickButton(stack, ACTIONS.skipNaming, { jobId, statusTs }, GUS);
      expect(await toldTo(GUS, from)).toMatch(/not a guest, can skip/);
      const answer = await sendViewSubmission(
        stack.url,
        SIGNING_SECRET,
        viewSubmissionPayload({
          callbackId: VIEWS.speakerNames,
          privateMetadata: jobId,
          values: {
            [speakerBlock.name("speaker_1")]: { name: { type: "plain_text_input", value: "X" } },
          },
          user: GUS,
        }),
      );
      expect(answer.json).toMatchObject({ response_action: "errors" });
      expect(JSON.stringify(answer.json)).toMatch(/not a guest/);
      await stack.settled();
      expect(inputsShownSince(views)).toBe(false);
      expect((await stack.job(jobId))?.stage).toBe("naming");
      expect(stack.emulator.stats.noteSubmissions).toHaveLength(0);
    });

    it("refuses Bob's Regenerate of Alice's notes and makes no Note Service call", async () => {
      const { ts } = await upload("bob-regenerates.m4a");
      const naming = await buttonOn(stack, ts, ACTIONS.skipNaming);
      await clickButton(
        stack,
        ACTIONS.skipNaming,
        { jobId: naming.jobId, statusTs: naming.statusTs },
        ALICE,
      );
      const { statusTs, jobId } = await buttonOn(stack, ts, ACTIONS.regenerate);
      const notes = stack.emulator.stats.noteSubmissions.length;
      const views = stack.fake.views.length;
      const from = stack.fake.ephemerals.length;
      await clickButton(stack, ACTIONS.regenerate, { jobId, statusTs }, BOB);
      expect(await shownInModal(views)).toMatch(/admin, can regenerate/);
      expect(stack.fake.ephemerals.slice(from)).toEqual([]);
      const forged = await sendViewSubmission(
        stack.url,
        SIGNING_SECRET,
        viewSubmissionPayload({
          callbackId: VIEWS.regenerate,
          privateMetadata: jobId,
          values: {},
          user: BOB,
        }),
      );
      expect(JSON.stringify(forged.json)).toMatch(/admin, can regenerate/);
      await stack.settled();
      expect(inputsShownSince(views)).toBe(false);
      expect(stack.emulator.stats.noteSubmissions.length).toBe(notes);
      expect((await stack.job(jobId))?.stage).toBe("done");
      expect(noteParts(stack.thread(ts)).length).toBeGreaterThan(0);
    });

    it("refuses a button that is not on the job's own status message", async () => {
      const { ts } = await upload("forged-button.m4a");
      const { jobId } = await buttonOn(stack, ts, ACTIONS.nameSpeakers);
      const from = stack.fake.ephemerals.length;
      // Alice's own job, but the click claims to come from another message.
      await clickButton(stack, ACTIONS.cancel, { jobId, statusTs: ts }, ALICE);
      expect(await toldTo(ALICE, from)).toMatch(/does not belong/);
      await stack.settled();
      expect((await stack.job(jobId))?.stage).toBe("naming");
    });
  });

  describe(`membership and roles as Slack has them now (${mode} mode)`, () => {
    const everyone = [ALICE, BOB, ADA, GUS];
    const setMembers = (members: string[]) =>
      stack.fake.addChannel({ id: CHANNEL, name: "weekly-sync", members });

    /**
     * A click with a `response_url` the fake Slack answers (clickButton's points nowhere): a
     * reply to someone no longer in the channel can only go there.
     */
    async function clickWithReplyUrl(actionId: string, at: JobButton, user: string) {
      const payload = blockActionPayload({
        actionId,
        value: at.jobId,
        user,
        teamId: stack.fake.teamId,
        channel: CHANNEL,
        messageTs: at.statusTs,
        responseUrl: stack.fake.responseUrl(),
      });
      expect(await stack.deliver.interaction(payload)).toMatchObject({ acked: true });
    }

    it("refuses a member removed from the channel at their very next click, privately, and nothing changes", async () => {
      const { ts } = await upload("removed-member.m4a");
      const at = await buttonOn(stack, ts, ACTIONS.nameSpeakers);
      const views = stack.fake.views.length;
      // Bob, a member, opens the names modal: his membership and role were just looked up.
      await clickButton(stack, ACTIONS.nameSpeakers, at, BOB);
      await eventually(
        () => stack.fake.views.length,
        (n) => n > views,
      );
      setMembers([ALICE, ADA, GUS]);
      try {
        const posts = stack.fake.responseUrlPosts.length;
        const ephemerals = stack.fake.ephemerals.length;
        await clickWithReplyUrl(ACTIONS.skipNaming, at, BOB);
        const told = await eventually(
          () => stack.fake.responseUrlPosts.slice(posts),
          (p) => p.length > 0,
        );
        expect(told[0]?.body).toMatchObject({
          response_type: "ephemeral",
          text: expect.stringMatching(/not a guest, can skip/),
        });
        // Slack shows no ephemeral message in a channel to someone not in it.
        expect(stack.fake.ephemerals.slice(ephemerals).filter((e) => e.user === BOB)).toEqual([]);
        const beforeSecond = stack.fake.views.length;
        await clickWithReplyUrl(ACTIONS.nameSpeakers, at, BOB);
        expect(await shownInModal(beforeSecond)).toMatch(/not a guest, can name the speakers/);
        // The modal he opened before is refused on submission too.
        const answer = await sendViewSubmission(
          stack.url,
          SIGNING_SECRET,
          viewSubmissionPayload({
            callbackId: VIEWS.speakerNames,
            privateMetadata: at.jobId,
            values: {
              [speakerBlock.name("speaker_1")]: { name: { type: "plain_text_input", value: "X" } },
            },
            user: BOB,
          }),
        );
        expect(JSON.stringify(answer.json)).toMatch(/not a guest, can name the speakers/);
        await stack.settled();
        expect(inputsShownSince(beforeSecond)).toBe(false);
        expect((await stack.job(at.jobId))?.stage).toBe("naming");
        expect(stack.emulator.stats.noteSubmissions).toHaveLength(0);
      } finally {
        setMembers(everyone);
      }
    });

    it("refuses a demoted admin's Cancel at once, though they cancelled a moment before", async () => {
      const first = await buttonOn(stack, (await upload("demoted-1.m4a")).ts, ACTIONS.nameSpeakers);
      const second = await buttonOn(
        stack,
        (await upload("demoted-2.m4a")).ts,
        ACTIONS.nameSpeakers,
      );
      await clickButton(stack, ACTIONS.cancel, first, ADA);
      await eventually(
        async () => (await stack.job(first.jobId))?.stage,
        (stage) => stage === "canceled",
      );
      stack.fake.addUser({ id: ADA, name: "ada", real_name: "Ada Admin", is_admin: false });
      try {
        const from = stack.fake.ephemerals.length;
        await clickButton(stack, ACTIONS.cancel, second, ADA);
        expect(await toldTo(ADA, from)).toMatch(/Only the person who started .* admin, can cancel/);
        await stack.settled();
        expect((await stack.job(second.jobId))?.stage).toBe("naming");
      } finally {
        stack.fake.addUser({ id: ADA, name: "ada", real_name: "Ada Admin", is_admin: true });
      }
    });
  });

  removedStarterJourney(() => stack, mode);

  describe(`/meeting-notes (${mode} mode)`, () => {
    const command = (text: string, user: string, channel = CHANNEL) =>
      sendCommand(stack.url, SIGNING_SECRET, {
        text,
        user_id: user,
        channel_id: channel,
        team_id: stack.fake.teamId,
        response_url: stack.fake.responseUrl(),
      });

    it("shows a guest why the settings are not theirs, asks nothing, and refuses their settings submission", async () => {
      const views = stack.fake.views.length;
      expect((await command("settings", GUS)).status).toBe(200);
      expect(await shownInModal(views)).toMatch(/not guests can change/);
      await stack.settled();
      expect(inputsShownSince(views)).toBe(false);
      const answer = await sendViewSubmission(
        stack.url,
        SIGNING_SECRET,
        viewSubmissionPayload({
          callbackId: VIEWS.channelSettings,
          privateMetadata: JSON.stringify({ channelId: CHANNEL }),
          values: {
            [INPUTS.autoTranscribe.block]: {
              [INPUTS.autoTranscribe.action]: {
                type: "radio_buttons",
                selected_option: { value: "off" },
              },
            },
          },
          user: GUS,
        }),
      );
      expect(JSON.stringify(answer.json)).toMatch(/not guests can change/);
      const settings = await stack.app.jobs.settings.get(stack.tenant, CHANNEL);
      expect(settings.autoTranscribe).toBe(true);
    });

    it("announces a member's settings change in the channel, with who changed what", async () => {
      const answer = await sendViewSubmission(
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
            [INPUTS.language.block]: {
              [INPUTS.language.action]: { type: "static_select", selected_option: { value: "vi" } },
            },
          },
          user: BOB,
        }),
      );
      expect(answer.json).toBeUndefined();
      const announced = await eventually(
        () => stack.fake.messages(CHANNEL).filter((m) => m.text.includes("changed the meeting")),
        (m) => m.length > 0,
      );
      expect(announced[0]?.text).toContain(`<@${BOB}>`);
      expect(announced[0]?.text).toMatch(/language Vietnamese/);
      await stack.app.jobs.settings.set(stack.tenant, CHANNEL, {
        autoTranscribe: true,
      });
    });

    /** A /meeting-notes submission by `user` with the given recording and destination. */
    async function submitNewNotes(
      user: string,
      recording: { upload: string } | { recent: string },
      destination: string,
      recent: string[] = [],
    ) {
      const values: Record<string, Record<string, Record<string, unknown>>> = {
        [INPUTS.destination.block]: {
          [INPUTS.destination.action]: {
            type: "conversations_select",
            selected_conversation: destination,
          },
        },
        [INPUTS.language.block]: {
          [INPUTS.language.action]: { type: "static_select", selected_option: { value: "auto" } },
        },
      };
      if ("upload" in recording) {
        values[INPUTS.recording.block] = {
          [INPUTS.recording.action]: { type: "file_input", files: [{ id: recording.upload }] },
        };
      } else {
        values[INPUTS.recentRecording.block] = {
          [INPUTS.recentRecording.action]: {
            type: "static_select",
            selected_option: { value: recording.recent },
          },
        };
      }
      const privateMetadata = JSON.stringify({ channelId: CHANNEL, recent });
      return sendViewSubmission(
        stack.url,
        SIGNING_SECRET,
        viewSubmissionPayload({ callbackId: VIEWS.newNotes, privateMetadata, values, user }),
      );
    }

    it("gives a field error for a destination the requester is not in, or the bot is not in", async () => {
      const file = stack.fake.addFile({
        name: "dest.m4a",
        bytes: recordingBytes("dest.m4a", 512, 1),
        user: BOB,
      });
      const notIn = await submitNewNotes(BOB, { upload: file.id }, ELSEWHERE);
      expect(notIn.json).toMatchObject({
        response_action: "errors",
        errors: { [INPUTS.destination.block]: expect.stringMatching(/you are in/) },
      });
      const noBot = await submitNewNotes(BOB, { upload: file.id }, NO_BOT);
      expect(noBot.json).toMatchObject({
        errors: { [INPUTS.destination.block]: expect.stringMatching(/Invite me/) },
      });
      await stack.settled();
      expect(stack.emulator.stats.audioSubmissions).toHaveLength(0);
      expect(stack.fake.downloads.filter((d) => d.fileId === file.id)).toHaveLength(0);
    });

    it("refuses someone else's recording unless it is shared where the requester is", async () => {
      const hidden = stack.fake.addFile({
        name: "olive.m4a",
        bytes: recordingBytes("olive.m4a", 512, 2),
        user: OLIVE,
      });
      stack.fake.shareFile(hidden, { channel: ELSEWHERE, user: OLIVE });
      const refused = await submitNewNotes(BOB, { upload: hidden.id }, CHANNEL);
      expect(refused.json).toMatchObject({
        errors: { [INPUTS.recording.block]: expect.stringMatching(/your own recordings/) },
      });
      // Alice is in #elsewhere, where Olive shared it: she may.
      const allowed = await submitNewNotes(ALICE, { upload: hidden.id }, CHANNEL);
      expect(allowed.json).toBeUndefined();
      await eventually(
        () => stack.emulator.stats.audioSubmissions,
        (s) => s.some((a) => a.filename === "olive.m4a"),
      );
    });

    it("accepts only the recent recordings the modal offered", async () => {
      const offered = stack.fake.addFile({
        name: "offered.m4a",
        bytes: recordingBytes("offered.m4a", 512, 3),
        user: ALICE,
      });
      stack.fake.shareFile(offered, { channel: CHANNEL, user: ALICE });
      const other = stack.fake.addFile({
        name: "other.m4a",
        bytes: recordingBytes("other.m4a", 512, 4),
        user: ALICE,
      });
      stack.fake.shareFile(other, { channel: CHANNEL, user: ALICE });
      const forged = await submitNewNotes(BOB, { recent: other.id }, CHANNEL, [offered.id]);
      expect(forged.json).toMatchObject({
        errors: { [INPUTS.recentRecording.block]: expect.stringMatching(/from the list/) },
      });
      const fine = await submitNewNotes(BOB, { recent: offered.id }, CHANNEL, [offered.id]);
      expect(fine.json).toBeUndefined();
    });

    it("refuses Bob's /meeting-notes cancel of Alice's job, and lets Alice's go through", async () => {
      const { ts } = await upload("command-cancel.m4a");
      const { jobId } = await buttonOn(stack, ts, ACTIONS.nameSpeakers);
      const posts = stack.fake.responseUrlPosts.length;
      await command(`cancel ${jobId}`, BOB);
      const reply = await eventually(
        () => stack.fake.responseUrlPosts.slice(posts),
        (p) => p.length > 0,
      );
      expect(JSON.stringify(reply[0]?.body)).toMatch(/admin, can cancel/);
      await stack.settled();
      expect((await stack.job(jobId))?.stage).toBe("naming");
      await command(`cancel ${jobId}`, ALICE);
      await eventually(
        async () => (await stack.job(jobId))?.stage,
        (stage) => stage === "canceled",
      );
    });
  });
}
