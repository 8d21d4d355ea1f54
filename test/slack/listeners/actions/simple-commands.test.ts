import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Job } from "../../../../src/jobs/index.ts";
import { ACTIONS } from "../../../../src/slack/ids.ts";
import { buildPermissionRefusal } from "../../../../src/slack/views/command-replies.ts";
import {
  ADMIN,
  ALICE,
  actionHandlers,
  asRequest,
  BOB,
  BOT,
  buildActionArgs,
  buildListenerDeps,
  CHANNEL,
  clickOn,
  ephemeralTexts,
  fakeAck,
  GUEST,
  LAN,
  type ListenerKit,
  ourJob,
} from "../../../../support/helpers/listener-args.ts";
import { done, failed, naming, queued, writing } from "../../views/fixtures.ts";

let kit: ListenerKit;
beforeEach(async () => {
  kit = await buildListenerDeps();
});
afterEach(() => kit.close());

/** Clicks a status-message button through the handler `listeners/index.ts` wires to it. */
async function press(actionId: string, job: Job, user: string) {
  const handler = actionHandlers(kit.deps).get(actionId);
  if (handler === undefined) throw new Error(`no handler for ${actionId}`);
  const ack = fakeAck();
  await asRequest(() => handler(buildActionArgs(kit, clickOn(job, actionId, user), { ack })));
  return ack;
}

/** What the clicker alone was told. */
const toldClicker = () => ephemeralTexts(kit);
const stageOf = async (job: Job) => (await kit.jobs.get(job.id))?.stage;
const joinChannel = (user: string) =>
  kit.workspace.members.set(CHANNEL, [...(kit.workspace.members.get(CHANNEL) ?? []), user]);

describe("Cancel", () => {
  it("cancels the starter's job and leaves the telling to the status message", async () => {
    const job = await kit.seed(ourJob(queued));
    const ack = await press(ACTIONS.cancel, job, ALICE);
    expect(ack).toHaveBeenCalledOnce();
    expect(await kit.jobs.get(job.id)).toMatchObject({ stage: "canceled", canceledBy: ALICE });
    // Applied at once (no step held the job): its status message is drawn with the cancel.
    expect(kit.runner.settle).toHaveBeenCalledWith(expect.objectContaining({ stage: "canceled" }));
    expect(toldClicker()).toEqual([]);
  });

  it("lets a workspace admin in the job's channel cancel someone else's job", async () => {
    joinChannel(ADMIN);
    const job = await kit.seed(ourJob(queued));
    await press(ACTIONS.cancel, job, ADMIN);
    expect(await kit.jobs.get(job.id)).toMatchObject({ stage: "canceled", canceledBy: ADMIN });
  });

  it("refuses a workspace admin who is not in the job's channel", async () => {
    const job = await kit.seed(ourJob(queued));
    await press(ACTIONS.cancel, job, ADMIN);
    expect(await stageOf(job)).toBe("queued");
    expect(toldClicker()).toEqual([
      buildPermissionRefusal("starter_or_admin", "cancel", "en").text,
    ]);
  });

  it("refuses its starter once removed from the job's channel", async () => {
    const job = await kit.seed(ourJob(queued));
    kit.workspace.members.set(CHANNEL, [BOB, LAN, GUEST, BOT]);
    await press(ACTIONS.cancel, job, ALICE);
    expect(await stageOf(job)).toBe("queued");
    expect(toldClicker()).toEqual([
      buildPermissionRefusal("starter_or_admin", "cancel", "en").text,
    ]);
  });

  it("refuses another member and leaves the job running", async () => {
    const job = await kit.seed(ourJob(queued));
    await press(ACTIONS.cancel, job, BOB);
    expect(toldClicker()).toEqual([
      buildPermissionRefusal("starter_or_admin", "cancel", "en").text,
    ]);
    expect(await stageOf(job)).toBe("queued");
  });

  it("refuses an admin demoted a moment ago, though their role was looked up just before", async () => {
    joinChannel(ADMIN);
    const first = await kit.seed(ourJob(queued));
    await press(ACTIONS.cancel, first, ADMIN);
    expect(await stageOf(first)).toBe("canceled");
    kit.workspace.users.set(ADMIN, { ...kit.workspace.users.get(ADMIN), is_admin: false });
    const job = await kit.seed(ourJob(queued));
    await press(ACTIONS.cancel, job, ADMIN);
    expect(toldClicker()).toEqual([
      buildPermissionRefusal("starter_or_admin", "cancel", "en").text,
    ]);
    expect(await stageOf(job)).toBe("queued");
  });

  it("says a finished job has already finished", async () => {
    const job = await kit.seed(ourJob(done()));
    await press(ACTIONS.cancel, job, ALICE);
    expect(toldClicker()).toEqual(["That job has already finished."]);
    expect(await stageOf(job)).toBe("done");
  });
});

describe("Skip", () => {
  it("writes the notes with neutral labels in the clicker's language", async () => {
    const job = await kit.seed(ourJob(naming()));
    await press(ACTIONS.skipNaming, job, LAN);
    const after = await kit.jobs.get(job.id);
    expect(after?.stage).toBe("writing");
    expect(after !== undefined && "note" in after ? after.note.speakerMap : []).toEqual([
      { speakerId: "speaker_1", name: "Người nói 1" },
      { speakerId: "speaker_2", name: "Người nói 2" },
      { speakerId: "speaker_3", name: "Người nói 3" },
    ]);
    expect(kit.runner.kick).toHaveBeenCalledWith(job.id);
    expect(toldClicker()).toEqual([]);
  });

  it("refuses a member removed from the channel right after their last click", async () => {
    const job = await kit.seed(ourJob(naming()));
    await press(ACTIONS.nameSpeakers, job, BOB);
    expect(kit.slack.views.open).toHaveBeenCalledOnce();
    kit.workspace.members.set(CHANNEL, [ALICE, LAN, GUEST, BOT]);
    await press(ACTIONS.skipNaming, job, BOB);
    expect(toldClicker()).toEqual([buildPermissionRefusal("starter_or_member", "skip", "en").text]);
    expect(await stageOf(job)).toBe("naming");
    expect(kit.slack.conversations.members).toHaveBeenCalledTimes(2);
  });

  it("refuses a guest", async () => {
    const job = await kit.seed(ourJob(naming()));
    await press(ACTIONS.skipNaming, job, GUEST);
    expect(toldClicker()).toEqual([buildPermissionRefusal("starter_or_member", "skip", "en").text]);
    expect(await stageOf(job)).toBe("naming");
  });

  it("says the job no longer waits for names once it is being written", async () => {
    const job = await kit.seed(ourJob(writing));
    await press(ACTIONS.skipNaming, job, ALICE);
    expect(toldClicker()).toEqual(["That job is no longer waiting for names."]);
  });
});

describe("Retry", () => {
  const broken = () => failed({ code: "task_failed", detail: "Audio decoding failed" }, true);

  it("lets a member resume a failed job where it failed", async () => {
    const job = await kit.seed(ourJob(broken()));
    await press(ACTIONS.retry, job, BOB);
    expect(await stageOf(job)).toBe("writing");
    expect(toldClicker()).toEqual([]);
  });

  it("says a failure that cannot be retried cannot", async () => {
    const job = await kit.seed(ourJob(failed({ code: "task_failed", detail: "bad" }, false)));
    await press(ACTIONS.retry, job, ALICE);
    expect(toldClicker()).toEqual(["That job can no longer be retried."]);
    expect(await stageOf(job)).toBe("failed");
  });

  it("refuses a guest", async () => {
    const job = await kit.seed(ourJob(broken()));
    await press(ACTIONS.retry, job, GUEST);
    expect(toldClicker()).toEqual([
      buildPermissionRefusal("starter_or_member", "retry", "en").text,
    ]);
    expect(await stageOf(job)).toBe("failed");
  });
});

describe("Open thread", () => {
  it("only acks: Slack opens the link itself", async () => {
    const job = await kit.seed(ourJob(done()));
    const ack = await press(ACTIONS.openThread, job, ALICE);
    expect(ack).toHaveBeenCalledOnce();
    expect(kit.slack.chat.postEphemeral).not.toHaveBeenCalled();
    expect(kit.slack.views.open).not.toHaveBeenCalled();
  });
});
