import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ACTIONS, INPUTS, speakerBlock, VIEWS } from "../../src/slack/ids.ts";
import type { SlackMode } from "../../support/e2e/stack.ts";
import {
  ALICE,
  BOB,
  buttonValue,
  eventually,
  filledModal,
  noteParts,
  type Stack,
  statusMessage,
} from "../../support/e2e/stack.ts";
import type { FakeMessage } from "../../support/fake-slack/fake-slack-types.ts";
import {
  blockActionPayload,
  fileShareMessageEvent,
  viewSubmissionPayload,
} from "../../support/fake-slack/slack-payloads.ts";
import { recordingBytes } from "../../support/fakes/recording-bytes.ts";

/**
 * Part of the permissions journey (permissions-journey.suite.ts), on its stack: Alice starts
 * notes in a private channel and is then removed from it. Her rights went with her
 * membership: Post to thread from her review DM, Change names, Cancel and Retry are each
 * refused with one private sentence, and nothing reaches the channel or the Note Service.
 */
export function removedStarterJourney(current: () => Stack, mode: SlackMode): void {
  const PRIVATE = "C0PRIVAT01";
  const board = (members: string[]) =>
    current().fake.addChannel({ id: PRIVATE, name: "board", is_private: true, members });

  beforeAll(async () => {
    board([ALICE, BOB]);
    await current().app.jobs.settings.set(current().tenant, PRIVATE, {
      autoTranscribe: true,
      review: true,
    });
  });
  afterEach(() => {
    board([ALICE, BOB]);
    current().fake.knobs.failDownloads = undefined;
  });

  /** Alice shares a recording in the private channel, as Slack sends it (`message.groups`). */
  async function share(name: string): Promise<string> {
    const { fake, deliver } = current();
    const file = fake.addFile({ name, bytes: recordingBytes(name), user: ALICE });
    const message = fake.shareFile(file, { channel: PRIVATE, user: ALICE });
    const event = fileShareMessageEvent(file, { channel: PRIVATE, user: ALICE, ts: message.ts });
    expect((await deliver.event({ ...event, channel_type: "group" })).acked).toBe(true);
    return message.ts;
  }

  /** The thread's status message once it offers `actionId`. */
  async function button(ts: string, actionId: string) {
    const status = await eventually(
      () => statusMessage(current().fake.thread(PRIVATE, ts)),
      (m) => buttonValue(m, actionId) !== undefined,
    );
    return { jobId: buttonValue(status, actionId) ?? "", statusTs: status?.ts ?? "" };
  }

  /** Alice clicks on `messageTs` in `channel`; the answer's `response_url` is returned. */
  async function click(actionId: string, jobId: string, channel: string, messageTs: string) {
    const responseUrl = current().fake.responseUrl();
    const payload = blockActionPayload({
      actionId,
      value: jobId,
      user: ALICE,
      channel,
      messageTs,
      responseUrl,
    });
    expect(await current().deliver.interaction(payload)).toMatchObject({ acked: true });
    return responseUrl;
  }

  /** What Alice alone was told after a click: an ephemeral message, or a reply to the click. */
  function toldAlice(responseUrl: string, ephemeralsFrom: number): Promise<string> {
    const { fake } = current();
    return eventually(
      () =>
        JSON.stringify([
          ...fake.ephemerals.slice(ephemeralsFrom).filter((e) => e.user === ALICE),
          ...fake.responseUrlPosts.filter((p) => responseUrl.endsWith(p.id)).map((p) => p.body),
        ]),
      (said) => said !== "[]",
    );
  }

  const stageOf = async (jobId: string) => (await current().job(jobId))?.stage;
  const channelNotes = (ts: string) => noteParts(current().fake.thread(PRIVATE, ts));

  describe(`a starter removed from a private channel (${mode} mode)`, () => {
    it("is refused Post to thread from the review DM and Change names, and nothing is posted or written", async () => {
      const stack = current();
      const ts = await share("board-review.m4a");
      const naming = await button(ts, ACTIONS.skipNaming);
      await click(ACTIONS.skipNaming, naming.jobId, PRIVATE, naming.statusTs);
      const job = await eventually(
        () => stack.job(naming.jobId),
        (j) => j?.stage === "reviewing" && j.ready === true,
      );
      const dm = job?.review?.channelId ?? "";
      const review = (await eventually(
        () =>
          stack.fake
            .messages(dm)
            .find(
              (m) =>
                m.metadata?.event_payload.job_id === naming.jobId &&
                m.metadata.event_payload.kind === "review",
            ),
        (m) => buttonValue(m, ACTIONS.postReview) !== undefined,
      )) as FakeMessage;
      // Change names opened while she was still a member.
      await click(ACTIONS.regenerate, naming.jobId, dm, review.ts);
      await filledModal(stack, VIEWS.regenerate, naming.jobId);
      const notes = stack.emulator.stats.noteSubmissions.length;
      board([BOB]);

      const ephemerals = stack.fake.ephemerals.length;
      const posted = await click(ACTIONS.postReview, naming.jobId, dm, review.ts);
      expect(await toldAlice(posted, ephemerals)).toMatch(/admin, can post them, and only while/);

      const template = stack.fake.addFile({
        name: "board.docx",
        bytes: Buffer.from("PK"),
        user: ALICE,
      });
      const answer = await stack.deliver.interaction(
        viewSubmissionPayload({
          callbackId: VIEWS.regenerate,
          privateMetadata: naming.jobId,
          values: {
            [speakerBlock.name("speaker_1")]: { name: { type: "plain_text_input", value: "Minh" } },
            [INPUTS.context.block]: {
              [INPUTS.context.action]: { type: "plain_text_input", value: "Board: budget" },
            },
            [INPUTS.template.block]: {
              [INPUTS.template.action]: { type: "file_input", files: [{ id: template.id }] },
            },
          },
          user: ALICE,
        }),
      );
      expect(JSON.stringify(answer.payload)).toMatch(/admin, can regenerate them, and only while/);

      const views = stack.fake.views.length;
      await click(ACTIONS.regenerate, naming.jobId, dm, review.ts);
      const refusal = await eventually(
        () => stack.fake.views.slice(views).filter((v) => v.op === "update"),
        (v) => v.length > 0,
      );
      expect(JSON.stringify(refusal.map((v) => v.view.blocks))).toMatch(/can regenerate them/);
      expect(JSON.stringify(refusal.map((v) => v.view.blocks))).not.toContain('"type":"input"');

      await stack.settled();
      expect(await stageOf(naming.jobId)).toBe("reviewing");
      expect((await stack.job(naming.jobId))?.review?.ts).toBe(review.ts);
      expect(stack.emulator.stats.noteSubmissions.length).toBe(notes);
      expect(channelNotes(ts)).toEqual([]);
      const uploads = stack.fake.uploads.filter((u) => u.completed && u.channel_id === PRIVATE);
      expect(uploads).toEqual([]);
    });

    it("is refused Cancel and Retry, told through the click's own reply, and the jobs stay as they were", async () => {
      const stack = current();
      const running = await button(await share("board-cancel.m4a"), ACTIONS.nameSpeakers);
      stack.fake.knobs.failDownloads = { status: 503, count: 1_000 };
      const failed = await button(await share("board-retry.m4a"), ACTIONS.retry);
      stack.fake.knobs.failDownloads = undefined;
      const downloads = stack.fake.downloads.length;
      board([BOB]);

      const ephemerals = stack.fake.ephemerals.length;
      const canceled = await click(ACTIONS.cancel, running.jobId, PRIVATE, running.statusTs);
      expect(await toldAlice(canceled, ephemerals)).toMatch(
        /admin, can cancel them, and only while/,
      );
      const retried = await click(ACTIONS.retry, failed.jobId, PRIVATE, failed.statusTs);
      expect(await toldAlice(retried, ephemerals)).toMatch(/can retry them, and only while/);
      // Slack shows no ephemeral message in a channel to someone not in it.
      expect(stack.fake.ephemerals.slice(ephemerals).filter((e) => e.user === ALICE)).toEqual([]);

      await stack.settled();
      expect(await stageOf(running.jobId)).toBe("naming");
      expect(await stageOf(failed.jobId)).toBe("failed");
      expect(stack.fake.downloads.length).toBe(downloads);
    });
  });
}
