import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTIONS, INPUTS, VIEWS } from "../../src/slack/ids.ts";
import { expectNoCapabilityInLog } from "../../support/e2e/log-secrets.ts";
import {
  ALPHA,
  BETA,
  click,
  ENTERPRISE,
  GAMMA,
  installToken,
  jobOf,
  ORG_ONE,
  people,
  populate,
  recording,
  runStep,
  runToNote,
  skipToNote,
  statusOffering,
  stepCompletions,
  stepJob,
  type TeamJob,
  tokenOf,
  tokensUsed,
  upload,
  workspaces,
} from "../../support/e2e/oauth-kit.ts";
import {
  type OAuthReplica,
  type OAuthStack,
  startOAuthStack,
} from "../../support/e2e/oauth-stack.ts";
import { buttonValue, eventually } from "../../support/e2e/stack.ts";
import {
  appHomeOpenedEvent,
  eventCallback,
  fileShareMessageEvent,
  viewSubmissionPayload,
} from "../../support/fake-slack/slack-payloads.ts";
import { oauthManifest } from "../fake-slack/installs.helpers.ts";

/**
 * Installs by OAuth in Socket Mode, end to end: docs/oauth-installs.md lets SLACK_APP_TOKEN and
 * SLACK_CLIENT_ID run together (the install pages on the bot's own HTTP server, every
 * request of Slack over the one socket of the app). Two workspaces install the app through
 * `/slack/install` → Slack's consent page → `/slack/oauth_redirect` (`oauth.v2.access`);
 * then each workspace's envelopes, stamped for its own install (`authorizations`), reach the
 * app over the socket and each job runs with its own workspace's token.
 */

let stack: OAuthStack;

beforeAll(async () => {
  stack = await startOAuthStack({
    // As docs/oauth-installs.md sets Socket Mode installs by OAuth up: the Socket Mode manifest plus
    // redirect URLs, org-wide installs and token rotation.
    manifest: oauthManifest({
      mode: "socket",
      settings: { org_deploy_enabled: true, token_rotation_enabled: true },
    }),
    // GAMMA never installs the app; ORG_ONE's organisation installs it org-wide.
    ...workspaces(ALPHA, BETA, GAMMA, ORG_ONE),
    quick: true,
    socketMode: true,
  });
  populate(stack, [ALPHA, BETA, GAMMA, ORG_ONE]);
}, 30_000);
afterAll(() => stack?.stop());

const logs = () => stack.replicas.flatMap((r) => r.logs);
/** Resolves once no listener, job step or completion runs: nothing calls Slack until told. */
async function quiet(): Promise<void> {
  for (const replica of stack.replicas) await replica.app.idle();
}

describe("installs by OAuth over Socket Mode", () => {
  let a: TeamJob;
  let b: TeamJob;

  it("serves /slack/install beside the socket and runs each workspace's upload, sent over the socket, with its own token", async () => {
    // Connected over the socket, and ready with no install yet; no request URL: Slack's
    // requests have no other way in.
    const origin = stack.replicas[0]?.origin;
    expect(stack.fake.socket?.openConnections()).toHaveLength(1);
    const ready = await fetch(`${origin}/readyz`);
    expect([ready.status, await ready.json()]).toEqual([
      200,
      { ok: true, store: true, slack: true, disk: true, socket: true },
    ]);
    expect((await fetch(`${origin}/slack/events`, { method: "POST", body: "{}" })).status).toBe(
      404,
    );
    for (const team of [ALPHA, BETA]) {
      const done = await stack.install({ team });
      expect(done.status).toBe(200);
      expect(done.page).toContain("Meeting Notes is installed.");
    }
    const [tokenA, tokenB] = [installToken(stack, ALPHA), installToken(stack, BETA)];
    expect(tokenA).not.toBe(tokenB);

    a = await upload(stack, ALPHA, "alpha-weekly.m4a");
    b = await upload(stack, BETA, "beta-weekly.m4a");
    expect((await jobOf(stack, a.jobId))?.origin).toMatchObject({
      install: `T${ALPHA}`,
      teamId: ALPHA,
    });
    expect((await jobOf(stack, b.jobId))?.origin).toMatchObject({
      install: `T${BETA}`,
      teamId: BETA,
    });
    await runToNote(stack, a);
    await runToNote(stack, b);
    // Every call about a workspace's channel, and every download of its recording, carried
    // that workspace's own token.
    expect(tokensUsed(stack, people(ALPHA).channel, "alpha-weekly.m4a")).toEqual({
      calls: new Set([tokenA]),
      downloads: new Set([tokenA]),
    });
    expect(tokensUsed(stack, people(BETA).channel, "beta-weekly.m4a")).toEqual({
      calls: new Set([tokenB]),
      downloads: new Set([tokenB]),
    });
  });

  it("runs the upload of a workspace of an org-wide install with the org's token, naming that workspace", async () => {
    expect((await stack.install({ enterprise: true })).status).toBe(200);
    const token = installToken(stack, ORG_ONE);
    await quiet();
    const before = stack.fake.calls.length;
    const one = await upload(stack, ORG_ONE, "org-one-sync.m4a");
    expect((await jobOf(stack, one.jobId))?.origin).toMatchObject({
      install: `E${ENTERPRISE}`,
      teamId: ORG_ONE,
    });
    await runToNote(stack, one);
    const calls = stack.fake.calls.slice(before);
    expect(new Set(calls.map(tokenOf))).toEqual(new Set([token]));
    expect(calls.filter((c) => c.error !== undefined).map((c) => c.method)).toEqual([]);
    // The org's token serves every workspace of the org: each call without a conversation
    // named this one.
    const unscoped = calls.filter(
      (c) => c.args.channel === undefined && c.args.channel_id === undefined,
    );
    expect(unscoped.length).toBeGreaterThan(0);
    for (const c of unscoped) expect(c.args.team_id).toBe(ORG_ONE);
  });

  it("refuses a button of one workspace replayed in the other, over the socket", async () => {
    const waiting = await upload(stack, ALPHA, "alpha-replayed.m4a");
    const before = logs().length;
    // Beta's admin replays Alpha's Cancel through Beta's install: Alpha's job is not Beta's.
    await click(stack, BETA, people(BETA).admin, ACTIONS.cancel, waiting);
    expect((await jobOf(stack, waiting.jobId))?.stage).toBe("naming");
    expect(logs().slice(before).join("")).toContain(
      "a request named a job of another installation",
    );
    // Alpha's own starter still can.
    await click(stack, ALPHA, people(ALPHA).starter, ACTIONS.cancel, waiting);
    await eventually(
      () => jobOf(stack, waiting.jobId),
      (j) => j?.stage === "canceled",
      { what: "Alpha's job canceled by its starter" },
    );
  });

  it("acks and drops an envelope of a workspace without an install", async () => {
    const p = people(GAMMA);
    const file = recording(stack, GAMMA, "gamma.m4a");
    const message = stack.fake.team(GAMMA).shareFile(file, { channel: p.channel, user: p.starter });
    await quiet();
    const calls = stack.fake.calls.length;
    const sent = await stack.fake.socket?.send(
      "events_api",
      eventCallback(
        fileShareMessageEvent(file, { channel: p.channel, user: p.starter, ts: message.ts }),
        { teamId: GAMMA, eventId: "Ev0GAMMA0001", botUserId: `U0BOT${GAMMA}` },
      ),
    );
    // Acked once (Slack would only send it again) and nothing done with it.
    expect(sent?.acked).toBe(true);
    expect(sent?.deliveries).toHaveLength(1);
    await quiet();
    expect(stack.fake.calls.slice(calls).map((c) => c.method)).toEqual([]);
    expect(
      logs().filter((line) => line.includes("a Slack envelope could not be processed")),
    ).toEqual([expect.stringContaining(`installation T${GAMMA} is not installed`)]);
  });

  it("runs the Workflow step of an installed workspace, sent over the socket, and completes it at once on the step's token", async () => {
    const file = recording(stack, BETA, "beta-planning.m4a");
    const run = runStep(stack, BETA, { recording: file.id });
    const outcome = await run.outcome;
    expect(outcome.status).toBe("success");
    expect(stepCompletions(stack, run).map(tokenOf)).toEqual([run.botAccessToken]);
    await skipToNote(stack, await stepJob(stack, run, `T${BETA}`));
  });

  it("fails the Workflow step at once, over the socket, for a file that is not a recording", async () => {
    const notes = stack.fake.team(ALPHA).addFile({
      name: "minutes.txt",
      bytes: "plain text",
      user: people(ALPHA).starter,
    });
    const run = runStep(stack, ALPHA, { recording: notes.id });
    const outcome = await run.outcome;
    expect(outcome.status).toBe("error");
    if (outcome.status !== "error") return;
    expect(outcome.error).toMatch(/^minutes\.txt is not a recording I can use: /);
    expect(outcome.error).not.toMatch(/[*\n]/);
    expect(outcome.error.match(/[.!?](\s|$)/g)).toHaveLength(1);
    // Failed by the listener, on the step's own token while Slack waits on it.
    expect(stepCompletions(stack, run).map(tokenOf)).toEqual([run.botAccessToken]);
  });

  it("opens the /meeting-notes modal of a slash_commands envelope with the workspace's token, and starts the job its submission asks for", async () => {
    const p = people(ALPHA);
    const token = installToken(stack, ALPHA);
    const views = stack.fake.views.length;
    await quiet();
    const calls = stack.fake.calls.length;
    const command = { ...stack.fake.team(ALPHA).commandContext, user_id: p.starter };
    expect(await stack.deliver.command({ ...command, channel_id: p.channel })).toMatchObject({
      acked: true,
      payload: undefined,
    });
    const filled = await eventually(
      () =>
        stack.fake.views
          .slice(views)
          .find((v) => v.op === "update" && v.view.callback_id === VIEWS.newNotes),
      (v) => v !== undefined,
      { what: "the /meeting-notes modal, filled" },
    );
    const file = recording(stack, ALPHA, "alpha-board.m4a");
    const submitted = await stack.deliver.interaction(
      viewSubmissionPayload({
        ...stack.fake.team(ALPHA).installContext,
        callbackId: VIEWS.newNotes,
        privateMetadata: String(filled?.view.private_metadata),
        values: {
          [INPUTS.recording.block]: {
            [INPUTS.recording.action]: { type: "file_input", files: [{ id: file.id }] },
          },
          [INPUTS.destination.block]: {
            [INPUTS.destination.action]: {
              type: "conversations_select",
              selected_conversation: p.channel,
            },
          },
        },
        user: p.starter,
      }),
    );
    expect(submitted).toMatchObject({ acked: true, payload: undefined });
    const parent = await eventually(
      () =>
        stack.fake
          .team(ALPHA)
          .messages(p.channel)
          .find((m) => m.text.includes("alpha-board.m4a")),
      (m) => m !== undefined,
      { what: "the thread the submission opened" },
    );
    const status = await statusOffering(stack, ALPHA, parent?.ts ?? "", ACTIONS.skipNaming);
    const jobId = buttonValue(status, ACTIONS.skipNaming) ?? "";
    expect((await jobOf(stack, jobId))?.origin).toMatchObject({
      install: `T${ALPHA}`,
      teamId: ALPHA,
      userId: p.starter,
    });
    // The modal's calls and the job's went out with Alpha's token, and Slack took them.
    const since = stack.fake.calls.slice(calls);
    expect(since.map((c) => c.method)).toEqual(
      expect.arrayContaining(["views.open", "views.update", "chat.postMessage"]),
    );
    expect(new Set(since.map(tokenOf))).toEqual(new Set([token]));
    expect(since.filter((c) => c.error !== undefined).map((c) => c.method)).toEqual([]);
  });

  it("sends a completion Slack failed once again at once, and nothing more across a restart mid-job", async () => {
    // Slack fails the completion once: the step's token lives minutes, so it is sent again now.
    stack.fake.knobs.failNext = { method: "functions.completeSuccess", error: "internal_error" };
    const run = runStep(stack, ALPHA, { recording: recording(stack, ALPHA, "restart.m4a").id });
    expect((await run.outcome).status).toBe("success");
    const job = await stepJob(stack, run, `T${ALPHA}`);
    // Waiting for names when the process goes; the new one takes the click over the socket.
    await statusOffering(stack, ALPHA, job.origin.threadTs, ACTIONS.skipNaming);
    await stack.restart();
    await skipToNote(stack, job);
    await quiet();
    expect(stepCompletions(stack, run).map((c) => [c.error, tokenOf(c)])).toEqual([
      ["internal_error", run.botAccessToken],
      [undefined, run.botAccessToken],
    ]);
    expect(stack.fake.socket?.openConnections()).toHaveLength(1);
  });

  it("forgets Beta's installation when Beta uninstalls, told over the socket", async () => {
    const store = (stack.replicas[0] as OAuthReplica).app.store;
    expect(await store.listKeys("installs", "")).toContain(`T${BETA}`);
    await stack.fake.uninstall({ team: BETA });
    await quiet();
    await eventually(
      () => store.listKeys("installs", ""),
      (keys) => !keys.includes(`T${BETA}`),
      { what: "Beta's installation forgotten" },
    );
    expect(await store.listKeys("installs", "")).toEqual(
      expect.arrayContaining([`T${ALPHA}`, `E${ENTERPRISE}`]),
    );
    // Beta's envelopes are now refused (acked, dropped); Alpha's still work.
    await quiet();
    const calls = stack.fake.calls.length;
    const sent = await stack.fake.socket?.send(
      "events_api",
      eventCallback(appHomeOpenedEvent(people(BETA).starter), {
        teamId: BETA,
        eventId: "Ev0BETAGONE1",
        botUserId: `U0BOT${BETA}`,
      }),
    );
    expect(sent?.acked).toBe(true);
    await quiet();
    expect(stack.fake.calls.slice(calls)).toEqual([]);
  });

  it("writes no capability to its debug log: no step token, response_url, trigger id, OAuth code or state, token or ticket", () => {
    expectNoCapabilityInLog(logs().join(""), {
      fake: stack.fake,
      secrets: stack.secrets(),
      handedOut: [
        "token",
        "refresh_token",
        "step_token",
        "app_token",
        "socket_url",
        "oauth_code",
        "oauth_state",
        "trigger_id",
        "response_url",
      ],
    });
  });
});
