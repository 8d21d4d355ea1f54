import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../src/jobs/index.ts";
import { ACTIONS, speakerBlock, VIEWS } from "../../src/slack/ids.ts";
import { t } from "../../src/slack/messages/catalog.ts";
import {
  ALICE,
  BOB,
  buttonOn,
  buttonValue,
  CHANNEL,
  clickButton,
  eventually,
  filledModal,
  markdownOf,
  noteParts,
  type Stack,
  shareRecording,
  startStack,
  statusMessage,
} from "../../support/e2e/stack.ts";
import type { FakeMessage } from "../../support/fake-slack/fake-slack-types.ts";
import {
  blockActionPayload,
  viewSubmissionPayload,
} from "../../support/fake-slack/slack-payloads.ts";

/*
 * Issue 26, review before posting: in a channel that asks for it, the written note goes to
 * the person who started the job, in the bot's direct message with them (opened with
 * conversations.open), with Post to thread, Change names and Discard; the thread shows only
 * that it waits for their review.
 */

let stack: Stack;
let dm: string;
beforeAll(async () => {
  stack = await startStack({ FFMPEG_PATH: "/nonexistent/ffmpeg" });
  stack.fake.setCanvasPolicy("allowed");
  await stack.app.jobs.settings.set(stack.fake.teamId, CHANNEL, {
    autoTranscribe: true,
    review: true,
  });
});
afterAll(() => stack.stop());

/** The review's first message of a job, with its buttons (the review is ready). */
function reviewMessage(jobId: string, delivery = 1): FakeMessage | undefined {
  return stack.fake.messages(dm).find((m) => {
    const payload = m.metadata?.event_payload;
    return payload?.job_id === jobId && payload.kind === "review" && payload.delivery === delivery;
  });
}

/** Alice shares a recording, skips naming, and the note comes to her for review. */
async function reviewed(name: string) {
  const { ts } = await shareRecording(stack, name);
  const at = await buttonOn(stack, ts, ACTIONS.skipNaming);
  await clickButton(stack, ACTIONS.skipNaming, at);
  const job = await eventually(
    () => stack.job(at.jobId),
    (j) => j?.stage === "reviewing" && j.ready === true,
    { what: `${name} ready for review` },
  );
  dm = job?.review?.channelId ?? "";
  const header = await eventually(
    () => reviewMessage(at.jobId),
    (m) => buttonValue(m, ACTIONS.postReview) !== undefined,
  );
  return { ts, jobId: at.jobId, header: header as FakeMessage };
}

/** A click on the review's first message, in the direct message. */
async function clickInDm(actionId: string, value: string, messageTs: string, user = ALICE) {
  const responseUrl = stack.fake.responseUrl();
  const payload = blockActionPayload({
    actionId,
    value,
    user,
    channel: dm,
    messageTs,
    responseUrl,
  });
  expect(await stack.deliver.interaction(payload)).toMatchObject({ acked: true });
  return responseUrl;
}

const repliesTo = (url: string) =>
  stack.fake.responseUrlPosts.filter((p) => url.endsWith(p.id)).map((p) => p.body);
const threadUploads = (ts: string) =>
  stack.fake.uploads.filter((u) => u.completed && u.channel_id === CHANNEL && u.thread_ts === ts);
const stageOf = async (id: string) => (await stack.job(id))?.stage;

describe("review before posting", () => {
  it("sends the note to its starter's DM with three buttons; the thread only waits", async () => {
    const { ts, jobId, header } = await reviewed("review-standup.m4a");
    expect(dm).toMatch(/^D/);
    for (const action of [ACTIONS.postReview, ACTIONS.regenerate, ACTIONS.discardReview]) {
      expect(buttonValue(header, action)).toBe(jobId);
    }
    const inDm = stack.fake.thread(dm, header.ts);
    expect(noteParts(inDm).length).toBeGreaterThan(0);
    expect(markdownOf(noteParts(inDm))).toContain("# Meeting notes");
    const dmFiles = stack.fake.uploads.filter((u) => u.completed && u.channel_id === dm);
    expect(dmFiles.map((f) => f.filename).sort()).toEqual([
      "review-standup - notes.docx",
      "review-standup - transcript.txt",
      "review-standup - transcript.vtt",
    ]);
    const thread = stack.thread(ts);
    expect(noteParts(thread)).toEqual([]);
    expect(threadUploads(ts)).toEqual([]);
    expect(statusMessage(thread)?.text).toBe(t("en", "status.reviewing", { user: `<@${ALICE}>` }));
    expect(statusMessage(thread)?.blocks).toHaveLength(2);

    // Bob, who did not start it and is no admin, cannot post it (he hears why, alone).
    const refused = await clickInDm(ACTIONS.postReview, jobId, header.ts, BOB);
    const said = await eventually(
      () => repliesTo(refused),
      (bodies) => bodies.length > 0,
    );
    expect(JSON.stringify(said)).toContain(t("en", "permission.starter_or_admin.post"));
    await stack.settled();
    expect(await stageOf(jobId)).toBe("reviewing");
    expect(noteParts(stack.thread(ts))).toEqual([]);

    // Alice posts it, twice at once: the thread gets the delivery once.
    await Promise.all([
      clickInDm(ACTIONS.postReview, jobId, header.ts),
      clickInDm(ACTIONS.postReview, jobId, header.ts),
    ]);
    await eventually(
      () => statusMessage(stack.thread(ts)),
      (m) => buttonValue(m, ACTIONS.regenerate) !== undefined,
    );
    await stack.settled();
    const parts = noteParts(stack.thread(ts));
    expect(parts.map((p) => p.metadata?.event_payload.part)).toEqual(
      noteParts(inDm).map((p) => p.metadata?.event_payload.part),
    );
    expect(
      threadUploads(ts)
        .map((f) => f.filename)
        .sort(),
    ).toEqual([
      "review-standup - notes.docx",
      "review-standup - transcript.txt",
      "review-standup - transcript.vtt",
    ]);
    expect(
      [...stack.fake.canvases.values()].filter((c) => c.title.startsWith("review-standup")),
    ).toHaveLength(1);
    expect(reviewMessage(jobId)?.text).toBe(
      t("en", "review.posted", { user: `<@${ALICE}>`, channel: `<#${CHANNEL}>` }),
    );
  });

  it("writes a new note for review on Change names, and discards it on Discard", async () => {
    const { ts, jobId, header } = await reviewed("review-planning.m4a");
    const other = await reviewed("review-other.m4a");
    // A button value of another job, on this job's message, acts on neither.
    const replayed = await clickInDm(ACTIONS.postReview, other.jobId, header.ts);
    await eventually(
      () => repliesTo(replayed).concat(stack.fake.ephemerals.filter((e) => e.channel === dm)),
      (said) => JSON.stringify(said).includes(t("en", "permission.not_this_job")),
    );
    expect(await stageOf(other.jobId)).toBe("reviewing");

    await clickInDm(ACTIONS.regenerate, jobId, header.ts);
    const modal = await filledModal(stack, VIEWS.regenerate, jobId);
    expect(modal).toBeDefined();
    const answer = await stack.deliver.interaction(
      viewSubmissionPayload({
        callbackId: VIEWS.regenerate,
        privateMetadata: jobId,
        values: {
          [speakerBlock.name("speaker_1")]: { name: { type: "plain_text_input", value: "Minh" } },
        },
        user: ALICE,
      }),
    );
    expect(answer.acked).toBe(true);
    const second = await eventually(
      () => reviewMessage(jobId, 2),
      (m) => buttonValue(m, ACTIONS.postReview) !== undefined,
      { what: "the second version, ready for review" },
    );
    expect(markdownOf(noteParts(stack.fake.thread(dm, second?.ts ?? "")))).toContain("Minh");
    expect(reviewMessage(jobId)?.text).toBe(t("en", "review.replaced"));
    expect(noteParts(stack.thread(ts))).toEqual([]);

    await clickInDm(ACTIONS.discardReview, jobId, second?.ts ?? "");
    const status = await eventually(
      () => statusMessage(stack.thread(ts)),
      (m) => m?.text === t("en", "status.discarded", { user: `<@${ALICE}>` }),
    );
    expect(buttonValue(status, ACTIONS.regenerate)).toBeUndefined();
    expect(noteParts(stack.thread(ts))).toEqual([]);
    expect(threadUploads(ts)).toEqual([]);
    expect(reviewMessage(jobId, 2)?.text).toBe(
      t("en", "review.discarded", { user: `<@${ALICE}>`, channel: `<#${CHANNEL}>` }),
    );
    // The other note still waits, for a restart: the next process posts it, once.
    await stack.restart();
    const job = (await stack.job(other.jobId)) as Job;
    expect(job).toMatchObject({ stage: "reviewing", ready: true });
    await clickInDm(ACTIONS.postReview, other.jobId, other.header.ts);
    await eventually(
      () => stageOf(other.jobId),
      (stage) => stage === "done",
    );
    await stack.settled();
    expect(noteParts(stack.thread(other.ts)).length).toBe(
      noteParts(stack.fake.thread(dm, other.header.ts)).length,
    );
    expect(threadUploads(other.ts).filter((f) => f.filename.endsWith(".docx"))).toHaveLength(1);
  });
});
