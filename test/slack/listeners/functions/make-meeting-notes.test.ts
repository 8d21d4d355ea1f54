import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { SINGLE_INSTALL } from "../../../../src/jobs/index.ts";
import { STEP_CALLBACK_ID } from "../../../../src/slack/ids.ts";
import { runAsInstall } from "../../../../src/slack/installs/request-tenant.ts";
import { makeMeetingNotes } from "../../../../src/slack/listeners/functions/make-meeting-notes.ts";
import { t } from "../../../../src/slack/messages/catalog.ts";
import { FILE_HOST } from "../../../../support/helpers/fake-web-client.ts";
import {
  ADMIN,
  ALICE,
  asRequest,
  BOB,
  buildEventArgs,
  buildListenerDeps,
  CHANNEL,
  LAN,
  type ListenerKit,
  OTHER_CHANNEL,
  TEAM,
} from "../../../../support/helpers/listener-args.ts";
import { loadObject } from "../../../../test/fixtures/slack-payloads/index.ts";

let kit: ListenerKit;
beforeEach(async () => {
  kit = await buildListenerDeps();
});
afterEach(() => kit.close());

/** A file in the workspace as `files.info` describes it: uploaded by `user`, shared nowhere. */
function file(id: string, name: string, user = ALICE, mimetype = "audio/mp4") {
  kit.workspace.files.set(id, {
    id,
    name,
    title: name,
    filetype: name.split(".").pop(),
    mimetype,
    user,
    size: 4096,
    mode: "hosted",
    url_private: `${FILE_HOST}/files-pri/${TEAM}-${id}/${name}`,
    url_private_download: `${FILE_HOST}/files-pri/${TEAM}-${id}/download/${name}`,
  });
  return id;
}

/**
 * Slack's published `function_executed`, as this app's step with `inputs`, and doubles of
 * Bolt's `complete` and `fail` (on the step's own token).
 */
function stepArgs(inputs: Record<string, unknown>, executionId = "Fx0STEP001") {
  const payload = loadObject("event-function_executed", { app: "A0FAKEAPP", user: ALICE });
  const event = {
    ...payload,
    function: { ...(payload.function as object), callback_id: STEP_CALLBACK_ID },
    function_execution_id: executionId,
    inputs,
  };
  const body = { type: "event_callback", team_id: TEAM, event };
  const fail = vi.fn(async (_args: { error: string }) => ({ ok: true }));
  const complete = vi.fn(async (_args: { outputs: Record<string, unknown> }) => ({ ok: true }));
  const args = { ...buildEventArgs<"function_executed">(kit, body), inputs, fail, complete };
  return { args, fail, complete };
}

const asked = (id: string) => ({ id, secret: "ctx-secret" });

describe("the Workflow Builder step's listener", () => {
  it("starts an ordinary job in a thread it opens, the participants and context as the modal's", async () => {
    const recording = file("F0REC00001", "weekly.m4a");
    const inputs = {
      recording,
      channel: CHANNEL,
      user: asked(ALICE),
      participants: [BOB, LAN],
      context: "Budget",
    };
    const { args, fail, complete } = stepArgs(inputs);
    await asRequest(() => makeMeetingNotes(kit.deps)(args as never));
    expect(fail).not.toHaveBeenCalled();
    const [job] = await kit.jobs.listByChannel(TEAM, CHANNEL);
    // Completed at once with the thread's link: the job goes on there.
    const link = await kit.slack.chat.getPermalink({
      channel: CHANNEL,
      message_ts: job?.origin.threadTs ?? "",
    });
    expect(complete.mock.calls).toEqual([[{ outputs: { thread_link: link.permalink } }]]);
    expect(job?.origin).toMatchObject({
      teamId: TEAM,
      channelId: CHANNEL,
      userId: ALICE,
      kind: "workflow",
      executionId: "Fx0STEP001",
    });
    expect(job?.options).toMatchObject({
      contextText: "Budget",
      speakers: [{ name: "Bob Le" }, { name: "Lan Nguyen" }],
    });
    const parent = kit.slack.chat.postMessage.mock.calls[0]?.[0];
    expect(parent).toMatchObject({ channel: CHANNEL });
    expect(job?.origin.threadTs).toBeDefined();

    // Slack delivering the event again starts nothing more and fails nothing.
    const again = stepArgs(inputs);
    await asRequest(() => makeMeetingNotes(kit.deps)(again.args as never));
    expect(again.fail).not.toHaveBeenCalled();
    expect(again.complete).not.toHaveBeenCalled();
    expect(await kit.jobs.listByChannel(TEAM, CHANNEL)).toHaveLength(1);
  });

  it.each([
    [
      "inputs Workflow Builder would not send",
      { recording: "F0X", channel: CHANNEL },
      "step.inputs",
    ],
    [
      "a recording the person did not upload and cannot see shared",
      { recording: "F0BOBS0001", channel: CHANNEL, user: asked(ALICE) },
      "step.recording_not_theirs",
    ],
    [
      "a channel the person is not in",
      { recording: "F0ADMIN001", channel: CHANNEL, user: asked(ADMIN) },
      "step.user_not_in",
    ],
    [
      "a file Slack will not show",
      { recording: "F0GONE0001", channel: CHANNEL, user: asked(ALICE) },
      "step.recording_unreadable",
    ],
  ] as const)("fails the step at once for %s", async (_what, inputs, key) => {
    file("F0BOBS0001", "bob.m4a", BOB);
    file("F0ADMIN001", "admin.m4a", ADMIN);
    kit.workspace.members.set(OTHER_CHANNEL, [BOB]);
    const { args, fail, complete } = stepArgs(inputs);
    await asRequest(() => makeMeetingNotes(kit.deps)(args as never));
    expect(fail.mock.calls).toEqual([[{ error: t("en", key) }]]);
    expect(complete).not.toHaveBeenCalled();
    expect(await kit.jobs.listByChannel(TEAM, CHANNEL)).toEqual([]);
  });

  it("sends a completion Slack failed for a passing reason again, and stops at an answer that it was taken", async () => {
    const recording = file("F0REC00003", "retro.m4a");
    const { args, complete } = stepArgs({ recording, channel: CHANNEL, user: asked(ALICE) });
    const platform = (error: string) =>
      Object.assign(new Error(error), { code: "slack_webapi_platform_error", data: { error } });
    complete
      .mockRejectedValueOnce(platform("internal_error"))
      .mockRejectedValueOnce(platform("execution_not_in_running_state"));
    await asRequest(() => makeMeetingNotes(kit.deps)(args as never));
    expect(complete).toHaveBeenCalledTimes(2);
  });

  it("fails the step with one sentence when Slack gives no link to the thread, the job going on", async () => {
    const recording = file("F0REC00004", "nolink.m4a");
    kit.slack.chat.getPermalink.mockRejectedValueOnce(new Error("message_not_found"));
    const { args, fail, complete } = stepArgs({ recording, channel: CHANNEL, user: asked(ALICE) });
    await asRequest(() => makeMeetingNotes(kit.deps)(args as never));
    expect(complete).not.toHaveBeenCalled();
    expect(fail.mock.calls).toEqual([[{ error: t("en", "step.no_link") }]]);
    expect(await kit.jobs.listByChannel(TEAM, CHANNEL)).toHaveLength(1);
  });

  it("fails the step, starting nothing, when its request names no workspace", async () => {
    const recording = file("F0REC00009", "weekly.m4a");
    const { args, fail } = stepArgs({ recording, channel: CHANNEL, user: asked(ALICE) });
    await runAsInstall(SINGLE_INSTALL, () => makeMeetingNotes(kit.deps)(args as never));
    expect(fail.mock.calls).toEqual([[{ error: t("en", "step.inputs") }]]);
    expect(await kit.jobs.listByChannel(TEAM, CHANNEL)).toEqual([]);
    expect(kit.slack.chat.postMessage).not.toHaveBeenCalled();
  });

  it("says why in the person's language, and a file that is no recording in one sentence", async () => {
    const pdf = file("F0PDF00001", "agenda.pdf", LAN, "application/pdf");
    const { args, fail } = stepArgs({ recording: pdf, channel: CHANNEL, user: asked(LAN) });
    await asRequest(() => makeMeetingNotes(kit.deps)(args as never));
    const error = fail.mock.calls[0]?.[0].error ?? "";
    expect(error).toMatch(/^agenda\.pdf không phải bản ghi âm/);
    expect(error.split(". ")).toHaveLength(1);
  });

  it("fails the step when the bot is not in the channel", async () => {
    const recording = file("F0REC00002", "weekly.m4a", BOB);
    kit.workspace.members.set(OTHER_CHANNEL, [BOB]);
    const { args, fail } = stepArgs({ recording, channel: OTHER_CHANNEL, user: asked(BOB) });
    await asRequest(() => makeMeetingNotes(kit.deps)(args as never));
    expect(fail.mock.calls).toEqual([[{ error: t("en", "step.bot_not_in") }]]);
  });
});
