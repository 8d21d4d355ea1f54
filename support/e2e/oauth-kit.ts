import { expect } from "vitest";
import type { Job } from "../../src/jobs/index.ts";
import { ACTIONS, STEP_CALLBACK_ID } from "../../src/slack/ids.ts";
import type { FakeTeamOption } from "../fake-slack/fake-slack-api.ts";
import type { FakeCall, FakeMessage } from "../fake-slack/fake-slack-types.ts";
import { blockActionPayload, fileShareMessageEvent } from "../fake-slack/slack-payloads.ts";
import type { FakeStepExecution } from "../fake-slack/workflow-steps.ts";
import { recordingBytes } from "../fakes/recording-bytes.ts";
import { eventually } from "../helpers/eventually.ts";
import type { OAuthStack } from "./oauth-stack.ts";
import { buttonValue, noteParts, statusMessage } from "./stack.ts";

/**
 * What the end-to-end tests of installs by OAuth do in a workspace, whichever way the
 * stack receives Slack's requests (`stack.deliver`: HTTP or Socket Mode).
 */

/** The workspaces of the OAuth tests: some on their own, two of one Grid organisation. */
export const ALPHA = "T0ALPHA";
export const BETA = "T0BETA";
/** A third workspace on its own: each test says whether it installs the app. */
export const GAMMA = "T0GAMMA";
export const ORG_ONE = "T0ORGONE";
export const ORG_TWO = "T0ORGTWO";
/** The Enterprise Grid organisation of ORG_ONE and ORG_TWO. */
export const ENTERPRISE = "E0STARSHIP";

const WORKSPACES: Record<string, FakeTeamOption> = {
  [ALPHA]: { id: ALPHA, name: "Alpha" },
  [BETA]: { id: BETA, name: "Beta" },
  [GAMMA]: { id: GAMMA, name: "Gamma" },
  [ORG_ONE]: { id: ORG_ONE, name: "Org One", enterprise: true },
  [ORG_TWO]: { id: ORG_TWO, name: "Org Two", enterprise: true },
};

/**
 * `startOAuthStack`'s world of these workspaces: `teams`, and the organisation when one of
 * them belongs to it.
 */
export function workspaces(...ids: string[]): {
  teams: FakeTeamOption[];
  enterprise?: { id: string; name: string };
} {
  const teams = ids.map((id) => {
    const team = WORKSPACES[id];
    if (team === undefined) throw new Error(`no workspace ${id} in the OAuth tests' world`);
    return team;
  });
  const org = teams.some((t) => t.enterprise === true);
  return { teams, ...(org ? { enterprise: { id: ENTERPRISE, name: "Starship" } } : {}) };
}

/** A workspace's people and channel: a starter, a plain member, an admin. */
export const people = (team: string) => ({
  starter: `U0S${team.slice(2)}`,
  member: `U0M${team.slice(2)}`,
  admin: `U0A${team.slice(2)}`,
  channel: `C0${team.slice(2)}`,
});

/** Gives each workspace its people and channel (all three in it). */
export function populate(stack: OAuthStack, teams: readonly string[]): void {
  for (const team of teams) {
    const p = people(team);
    const workspace = stack.fake.team(team);
    const add = (id: string, name: string, isAdmin = false) =>
      workspace.addUser({ id, name, real_name: name, locale: "en-US", is_admin: isAdmin });
    add(p.starter, `Starter of ${team}`);
    add(p.member, `Member of ${team}`);
    add(p.admin, `Admin of ${team}`, true);
    workspace.addChannel({
      id: p.channel,
      name: `sync-${team.toLowerCase()}`,
      members: [p.starter, p.member, p.admin],
    });
  }
}

/** A job a test follows: its workspace, thread and status message. */
export interface TeamJob {
  team: string;
  ts: string;
  jobId: string;
  statusTs: string;
}

/** The job's status message once it offers `actionId`. */
export async function statusOffering(
  stack: OAuthStack,
  team: string,
  threadTs: string,
  actionId: string,
): Promise<FakeMessage | undefined> {
  return eventually(
    () => statusMessage(stack.fake.team(team).thread(people(team).channel, threadTs)),
    (m) => buttonValue(m, actionId) !== undefined,
    { what: `${team}'s job offering ${actionId}` },
  );
}

/** A recording of `team`'s starter (or `user`), at Slack, shared nowhere yet. */
export function recording(stack: OAuthStack, team: string, name: string, user?: string) {
  const bytes = recordingBytes(name);
  return stack.fake.team(team).addFile({ name, bytes, user: user ?? people(team).starter });
}

/** The starter of `team` shares a recording in the team's channel, as Slack delivers it. */
export async function upload(stack: OAuthStack, team: string, name: string): Promise<TeamJob> {
  const p = people(team);
  const workspace = stack.fake.team(team);
  const file = recording(stack, team, name);
  const message = workspace.shareFile(file, { channel: p.channel, user: p.starter, text: "" });
  const event = fileShareMessageEvent(file, {
    channel: p.channel,
    user: p.starter,
    ts: message.ts,
  });
  expect((await stack.deliver.event(team, event)).acked).toBe(true);
  // The job waits for names: its status message offers Skip.
  const status = await statusOffering(stack, team, message.ts, ACTIONS.skipNaming);
  return {
    team,
    ts: message.ts,
    jobId: buttonValue(status, ACTIONS.skipNaming) ?? "",
    statusTs: status?.ts ?? "",
  };
}

/**
 * `user` of workspace `from` clicks `actionId` with `at`'s job id, on `at`'s status message
 * (a replay when `from` is not `at`'s workspace), sent as Slack sends it to `from`'s install.
 */
export async function click(
  stack: OAuthStack,
  from: string,
  user: string,
  actionId: string,
  at: TeamJob,
): Promise<void> {
  const payload = blockActionPayload({
    ...stack.fake.team(from).installContext,
    actionId,
    value: at.jobId,
    user,
    channel: people(at.team).channel,
    messageTs: at.statusTs,
    threadTs: at.ts,
  });
  expect(await stack.deliver.interaction(payload)).toMatchObject({
    acked: true,
    payload: undefined,
  });
  for (const replica of stack.replicas) await replica.app.idle();
}

/** The job, as the first replica reads it. */
export function jobOf(stack: OAuthStack, jobId: string): Promise<Job | undefined> {
  const replica = stack.replicas[0];
  if (replica === undefined) throw new Error("the stack has no replica");
  return replica.app.jobs.service.get(jobId);
}

/** Skips naming as the starter; resolves with the note's parts once the job is done. */
export async function runToNote(stack: OAuthStack, at: TeamJob): Promise<FakeMessage[]> {
  await click(stack, at.team, people(at.team).starter, ACTIONS.skipNaming, at);
  const parts = await eventually(
    () => noteParts(stack.fake.team(at.team).thread(people(at.team).channel, at.ts)),
    (posted) => posted.length > 0,
    { what: `the note of ${at.team}` },
  );
  await eventually(
    () => jobOf(stack, at.jobId),
    (j) => j?.stage === "done",
    { what: `${at.team}'s job done` },
  );
  return parts;
}

/**
 * Workflow Builder runs the step in `team` for its starter, into the team's channel; `inputs`
 * over those (a `recording` at least).
 */
export function runStep(
  stack: OAuthStack,
  team: string,
  inputs: Record<string, unknown>,
): FakeStepExecution {
  const p = people(team);
  return stack.fake.runWorkflowStep({
    callbackId: STEP_CALLBACK_ID,
    team,
    user: p.starter,
    inputs: {
      channel: p.channel,
      user: { id: p.starter, secret: `secret-of-${p.starter}` },
      ...inputs,
    },
  });
}

/** The job a step run started in `team`'s channel under `install`, once it is recorded. */
export async function stepJob(
  stack: OAuthStack,
  run: FakeStepExecution,
  install: string,
): Promise<Job> {
  const replica = stack.replicas[0];
  if (replica === undefined) throw new Error("the stack has no replica");
  const found = await eventually(
    async () =>
      (
        await replica.app.jobs.service.listByChannel(
          `${install}/${run.teamId}`,
          people(run.teamId).channel,
        )
      ).find((j) => j.origin.executionId === run.executionId),
    (job) => job !== undefined,
    { what: `the step's job in ${run.teamId}` },
  );
  if (found === undefined) throw new Error("no job");
  return found;
}

/** Skips naming in a step's thread, as the starter; the note once the job is done. */
export async function skipToNote(stack: OAuthStack, job: Job): Promise<FakeMessage[]> {
  const team = job.origin.teamId;
  const status = await statusOffering(stack, team, job.origin.threadTs, ACTIONS.skipNaming);
  return runToNote(stack, {
    team,
    ts: job.origin.threadTs,
    jobId: buttonValue(status, ACTIONS.skipNaming) ?? "",
    statusTs: status?.ts ?? "",
  });
}

/** The completions (`functions.completeSuccess`, `completeError`) of a step run. */
export const stepCompletions = (stack: OAuthStack, run: FakeStepExecution): FakeCall[] =>
  stack.fake.calls.filter(
    (c) =>
      c.method.startsWith("functions.complete") && c.args.function_execution_id === run.executionId,
  );

/** The token a Web API call carried. */
export const tokenOf = (call: FakeCall): string =>
  String(call.headers.authorization ?? "").replace(/^Bearer /, "");

/** The bot token of the live install acting in `team`. */
export const installToken = (stack: OAuthStack, team: string): string =>
  stack.fake.team(team).botToken ?? "";

/**
 * The tokens of every call about `channel` (its messages, its members) and of every download
 * of a file whose name ends with `fileName`.
 */
export function tokensUsed(stack: OAuthStack, channel: string, fileName: string) {
  return {
    calls: new Set(
      stack.fake.calls
        .filter((c) => c.args.channel === channel || c.args.channel_id === channel)
        .map(tokenOf),
    ),
    downloads: new Set(
      stack.fake.downloads
        .filter((d) => d.served && d.path.endsWith(fileName))
        .map((d) => String(d.headers.authorization ?? "").replace(/^Bearer /, "")),
    ),
  };
}
