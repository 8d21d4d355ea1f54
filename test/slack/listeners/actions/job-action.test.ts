import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SINGLE_INSTALL } from "../../../../src/jobs/index.ts";
import { ACTIONS } from "../../../../src/slack/ids.ts";
import { runAsInstall } from "../../../../src/slack/installs/request-tenant.ts";
import {
  type ButtonClick,
  permittedJob,
  readButton,
  tellClicker,
} from "../../../../src/slack/listeners/actions/job-action.ts";
import {
  buildCommandRefusal,
  buildPermissionRefusal,
} from "../../../../src/slack/views/command-replies.ts";
import { platformError } from "../../../../support/helpers/fake-web-client.ts";
import {
  ALICE,
  asRequest,
  BOB,
  BOT,
  buildActionArgs,
  buildListenerDeps,
  CHANNEL,
  clickOn,
  ephemerals,
  fakeAck,
  fixtureIds,
  GUEST,
  LAN,
  type ListenerKit,
  ourJob,
} from "../../../../support/helpers/listener-args.ts";
import { loadObject } from "../../../fixtures/slack-payloads/index.ts";
import { naming, queued } from "../../views/fixtures.ts";

let kit: ListenerKit;
beforeEach(async () => {
  kit = await buildListenerDeps();
});
afterEach(() => kit.close());

const TRIGGER = "1700000000.2.fedcba9876543210fedcba9876543210";

/** What the clicker alone was told, and where. */
const toldAlone = () => ephemerals(kit);

describe("readButton", () => {
  it("acks first, then reads the job id, the clicker, the place and their language", async () => {
    const job = ourJob(queued);
    const ack = fakeAck();
    const args = buildActionArgs(kit, clickOn(job, ACTIONS.cancel, LAN, { triggerId: TRIGGER }), {
      ack,
    });
    const click = await readButton(kit.deps, args);
    expect(ack.mock.calls).toEqual([[]]);
    expect(ack.mock.invocationCallOrder[0]).toBeLessThan(
      kit.slack.users.info.mock.invocationCallOrder[0] ?? 0,
    );
    expect(click).toEqual({
      jobId: job.id,
      userId: LAN,
      triggerId: TRIGGER,
      channelId: CHANNEL,
      messageTs: job.statusTs,
      threadTs: job.origin.threadTs,
      responseUrl: expect.stringMatching(/^https:\/\/hooks\.slack\.test\/actions\//),
      locale: "vi",
    });
  });

  it("reads Slack's published click, which has the message only in its container", async () => {
    const body = loadObject(
      "interaction-block_actions",
      fixtureIds({
        ts: "1700000500.000100",
        responseUrl: "https://hooks.slack.com/actions/T0FAKE/1/abc",
        actionId: ACTIONS.cancel,
        blockId: "job_actions",
        value: "job-published",
      }),
    );
    const click = await readButton(kit.deps, buildActionArgs(kit, body));
    expect(click).toMatchObject({
      jobId: "job-published",
      userId: ALICE,
      channelId: CHANNEL,
      messageTs: "1700000500.000100",
      threadTs: "1700000500.000100",
      responseUrl: "https://hooks.slack.com/actions/T0FAKE/1/abc",
      locale: "en",
    });
  });

  it("acks and gives up on a payload that carries no job id", async () => {
    const body = clickOn(ourJob(queued), ACTIONS.cancel, ALICE);
    body.actions = [];
    const ack = fakeAck();
    expect(await readButton(kit.deps, buildActionArgs(kit, body, { ack }))).toBeUndefined();
    expect(ack).toHaveBeenCalledOnce();
    expect(kit.logged("warn")).toEqual(["unreadable button payload"]);
  });
});

describe("permittedJob", () => {
  async function decide(body: Record<string, unknown>, action: "cancel" | "retry" = "cancel") {
    const args = buildActionArgs(kit, body);
    const click = await readButton(kit.deps, args);
    if (click === undefined) throw new Error("unreadable click");
    return asRequest(() => permittedJob(kit.deps, click, action, action));
  }

  it("gives the job to its starter and tells nobody anything", async () => {
    const job = await kit.seed(ourJob(queued));
    expect(await decide(clickOn(job, ACTIONS.cancel, ALICE))).toEqual(job);
    expect(toldAlone()).toEqual([]);
  });

  it("tells the clicker alone, in the thread, that the job is gone", async () => {
    const job = ourJob(queued);
    expect(await decide(clickOn(job, ACTIONS.cancel, ALICE))).toBeUndefined();
    expect(toldAlone()).toEqual([
      {
        channel: CHANNEL,
        user: ALICE,
        thread_ts: job.origin.threadTs,
        ...buildCommandRefusal("not_found", "cancel", "en"),
      },
    ]);
  });

  it("finds no job for a click whose request names no workspace (ownership fails closed)", async () => {
    const job = await kit.seed(ourJob(queued));
    const click = await readButton(
      kit.deps,
      buildActionArgs(kit, clickOn(job, ACTIONS.cancel, ALICE)),
    );
    if (click === undefined) throw new Error("unreadable click");
    const decided = runAsInstall(SINGLE_INSTALL, () =>
      permittedJob(kit.deps, click, "cancel", "cancel"),
    );
    expect(await decided).toBeUndefined();
    expect(toldAlone()).toEqual([
      expect.objectContaining(buildCommandRefusal("not_found", "cancel", "en")),
    ]);
    expect((await kit.jobs.get(job.id))?.stage).toBe("queued");
  });

  it("tells a member who may not cancel someone else's job who can", async () => {
    const job = await kit.seed(ourJob(queued));
    expect(await decide(clickOn(job, ACTIONS.cancel, BOB))).toBeUndefined();
    expect(toldAlone()).toEqual([
      {
        channel: CHANNEL,
        user: BOB,
        thread_ts: job.origin.threadTs,
        ...buildPermissionRefusal("starter_or_admin", "cancel", "en"),
      },
    ]);
    expect(kit.logs.find((line) => line.msg === "job action refused")).toMatchObject({
      jobId: job.id,
      userId: BOB,
      refused: "starter_or_admin",
    });
  });

  it("refuses a button that is not on the job's own status message, even to its starter", async () => {
    const job = await kit.seed(ourJob(queued));
    const body = clickOn(job, ACTIONS.cancel, ALICE, { messageTs: "1700000999.000001" });
    expect(await decide(body)).toBeUndefined();
    expect(toldAlone()[0]).toMatchObject(buildPermissionRefusal("not_this_job", "cancel", "en"));
  });

  it("lets a member retry someone else's job", async () => {
    const job = await kit.seed(ourJob(queued));
    expect(await decide(clickOn(job, ACTIONS.retry, BOB), "retry")).toEqual(job);
  });

  it("tells someone no longer in the channel through the click's response_url", async () => {
    const job = await kit.seed(ourJob(naming()));
    kit.workspace.members.set(CHANNEL, [ALICE, LAN, GUEST, BOT]);
    kit.slack.chat.postEphemeral.mockRejectedValueOnce(platformError("user_not_in_channel"));
    const body = clickOn(job, ACTIONS.skipNaming, BOB);
    const args = buildActionArgs(kit, body);
    const click = await readButton(kit.deps, args);
    if (click === undefined) throw new Error("unreadable click");
    expect(await asRequest(() => permittedJob(kit.deps, click, "skip", "names"))).toBeUndefined();
    expect(kit.respond.mock.calls).toEqual([
      [body.response_url, buildPermissionRefusal("starter_or_member", "skip", "en")],
    ]);
    expect(kit.logged("warn")).toEqual([]);
  });

  it("only logs when the refusal cannot be delivered", async () => {
    kit.slack.chat.postEphemeral.mockRejectedValueOnce(platformError("channel_not_found"));
    expect(await decide(clickOn(ourJob(queued), ACTIONS.cancel, ALICE))).toBeUndefined();
    expect(kit.logged("warn")).toEqual(["could not send an ephemeral reply"]);
  });
});

describe("tellClicker", () => {
  it("says nothing when the click names no channel", async () => {
    const click: ButtonClick = {
      jobId: "job-x",
      userId: ALICE,
      triggerId: undefined,
      channelId: undefined,
      messageTs: undefined,
      threadTs: undefined,
      responseUrl: undefined,
      locale: "en",
    };
    await tellClicker(kit.deps, click, buildCommandRefusal("wrong_stage", "cancel", "en"));
    expect(toldAlone()).toEqual([]);
  });
});
