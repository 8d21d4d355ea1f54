import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { installKeyOf } from "../../src/slack/installs/install-key.ts";
import {
  ALPHA,
  BETA,
  ENTERPRISE,
  installToken,
  ORG_ONE,
  people,
  populate,
  recording,
  runStep,
  skipToNote,
  stepCompletions,
  stepJob,
  tokenOf,
  workspaces,
} from "../../support/e2e/oauth-kit.ts";
import {
  OAUTH_SIGNING_SECRET,
  type OAuthReplica,
  type OAuthStack,
  startOAuthStack,
} from "../../support/e2e/oauth-stack.ts";
import { eventually } from "../../support/e2e/stack.ts";
import type { FakeStepExecution } from "../../support/fake-slack/workflow-steps.ts";
import { oauthManifest } from "../fake-slack/installs.helpers.ts";

/**
 * The Workflow Builder step "Make meeting notes" with installs by OAuth, over HTTP: two
 * workspaces and an Enterprise Grid organisation (org-wide) install the app through
 * `/slack/install`; Workflow Builder runs the step in one of them (`function_executed`,
 * stamped for that workspace's install); the step completes at once on the step's own
 * `bot_access_token`, with the link of the thread the job runs in, and the job speaks to
 * Slack with THAT install's bot token — not another install's.
 */

let stack: OAuthStack;
let replica: OAuthReplica;

beforeAll(async () => {
  stack = await startOAuthStack({
    manifest: oauthManifest({ settings: { org_deploy_enabled: true } }),
    ...workspaces(ALPHA, BETA, ORG_ONE),
    quick: true,
  });
  replica = stack.replicas[0] as OAuthReplica;
  populate(stack, [ALPHA, BETA, ORG_ONE]);
  for (const team of [ALPHA, BETA]) expect((await stack.install({ team })).status).toBe(200);
  expect((await stack.install({ enterprise: true })).status).toBe(200);
  // The events the fake sends (function_executed among them) reach the app over HTTP.
  stack.fake.deliverEvents({
    url: `${replica.origin}/slack/events`,
    signingSecret: OAUTH_SIGNING_SECRET,
  });
}, 30_000);
afterAll(() => stack?.stop());
beforeEach(() => {
  stack.emulator.reset();
});

const completions = (run: FakeStepExecution) => stepCompletions(stack, run);

/** One plain sentence: no mrkdwn, no second line, one full stop. */
function expectOneSentence(text: string) {
  expect(text).not.toMatch(/[*\n]/);
  expect(text.match(/[.!?](\s|$)/g)).toHaveLength(1);
}

describe("the Workflow step with installs by OAuth", () => {
  it("runs in the workspace that ran it, completes on the step's token, and the job speaks as that install", async () => {
    const [tokenA, tokenB] = [installToken(stack, ALPHA), installToken(stack, BETA)];
    expect(tokenA).not.toBe(tokenB);
    const run = runStep(stack, BETA, { recording: recording(stack, BETA, "beta-planning.m4a").id });
    const job = await stepJob(stack, run, installKeyOf({ teamId: BETA }));
    expect(job.origin).toMatchObject({ kind: "workflow", teamId: BETA, install: `T${BETA}` });
    const outcome = await run.outcome;
    expect(outcome.status).toBe("success");
    if (outcome.status !== "success") return;
    expect(outcome.outputs.thread_link).toContain(job.origin.threadTs.replace(".", ""));
    // Once, on the step's own token, the one Slack's SDKs complete with.
    expect(completions(run).map(tokenOf)).toEqual([run.botAccessToken]);
    await skipToNote(stack, job);
    // The whole job spoke to Slack as Beta.
    const about = stack.fake.calls.filter((c) => c.args.channel === people(BETA).channel);
    expect(new Set(about.map(tokenOf))).toEqual(new Set([tokenB]));
    await replica.app.idle();
    expect(completions(run)).toHaveLength(1);
  });

  it("completes a step of an org-wide install's workspace, whose job speaks with the org's token", async () => {
    const org = installKeyOf({ enterpriseId: ENTERPRISE, isEnterpriseInstall: true });
    const run = runStep(stack, ORG_ONE, {
      recording: recording(stack, ORG_ONE, "org-planning.m4a").id,
    });
    const job = await stepJob(stack, run, org);
    expect(job.origin).toMatchObject({ teamId: ORG_ONE, install: org });
    expect((await run.outcome).status).toBe("success");
    expect(completions(run).map(tokenOf)).toEqual([run.botAccessToken]);
    await skipToNote(stack, job);
    const about = stack.fake.calls.filter((c) => c.args.channel === people(ORG_ONE).channel);
    expect(new Set(about.map(tokenOf))).toEqual(new Set([installToken(stack, ORG_ONE)]));
  });

  it("fails the step at once with one sentence for a file that is not a recording, one of someone else, or a channel the bot is not in", async () => {
    const p = people(ALPHA);
    const notes = stack.fake.team(ALPHA).addFile({
      name: "minutes.txt",
      bytes: "plain text",
      user: p.starter,
    });
    const theirs = recording(stack, ALPHA, "members-call.m4a", p.member);
    stack.fake.team(ALPHA).addChannel({
      id: "C0NOBOTA1",
      name: "no-bot",
      is_member: false,
      members: [p.starter],
    });
    const cases = [
      [{ recording: notes.id }, /^minutes\.txt is not a recording I can use: the step takes mp3, /],
      [{ recording: theirs.id }, /one the person who used this workflow/],
      [
        { recording: recording(stack, ALPHA, "ok.m4a").id, channel: "C0NOBOTA1" },
        /invite me there/,
      ],
    ] as const;
    for (const [inputs, sentence] of cases) {
      const run = runStep(stack, ALPHA, inputs);
      const outcome = await run.outcome;
      expect(outcome.status).toBe("error");
      if (outcome.status !== "error") continue;
      expect(outcome.error).toMatch(sentence);
      expectOneSentence(outcome.error);
      // Failed at once by the listener, on the step's own token while Slack waits on it.
      expect(completions(run).map(tokenOf)).toEqual([run.botAccessToken]);
    }
    await replica.app.idle();
    const tenant = `${installKeyOf({ teamId: ALPHA })}/${ALPHA}`;
    expect(await replica.app.jobs.service.listByChannel(tenant, "C0NOBOTA1")).toEqual([]);
  });

  it("says a later failure of the job in its thread only: the step completed when the job started", async () => {
    stack.emulator.knobs.failNextTasks = [
      { kind: "audio", message: "The audio track is corrupt." },
    ];
    const run = runStep(stack, ALPHA, { recording: recording(stack, ALPHA, "broken.m4a").id });
    expect((await run.outcome).status).toBe("success");
    const job = await stepJob(stack, run, installKeyOf({ teamId: ALPHA }));
    await eventually(
      () => replica.app.jobs.service.get(job.id),
      (j) => j?.stage === "failed",
      { what: "the job failed" },
    );
    await replica.app.idle();
    expect(completions(run).map(tokenOf)).toEqual([run.botAccessToken]);
  });
});
