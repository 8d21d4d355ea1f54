import { expect } from "vitest";
import { ACTIONS } from "../../src/slack/ids.ts";
import { installTokens } from "../e2e/oauth-install.ts";
import {
  ALICE,
  buttonValue,
  CHANNEL,
  eventually,
  SIGNING_SECRET,
  type SlackMode,
  type Stack,
  shareRecording,
  startStack,
  statusMessage,
} from "../e2e/stack.ts";
import type { FakeEphemeral, FakeMessage } from "../fake-slack/fake-slack-types.ts";
import { blockActionPayload } from "../fake-slack/slack-payloads.ts";
import { type SlackAppResponse, sendAction } from "../fake-slack/slack-request.ts";
import { type ProcessWatch, watchProcess } from "./process-watch.ts";

/**
 * "Answered, not hung": Bolt gives a request nobody acks 3 s before it answers 404; a
 * request that hangs never answers. The bound tells those apart with room for a machine
 * running two suites at once (how fast the app answers is the ack benchmark's to measure).
 */
export const ANSWER_WITHIN_MS = 15_000;

/** The real app (HTTP mode) with the fakes, plus the checks every hostile test file makes. */
export interface HostileStack {
  stack: Stack;
  watch: ProcessWatch;
  /** The secrets that must never reach a log line (the OAuth mode's too). */
  readonly secrets: string[];
  stop(): Promise<void>;
}

/**
 * OAuth mode: a second workspace of the fake that installed the app too (its jobs are
 * another install's), and one that never did (Slack sends nothing of it, but a request
 * signed with the app's secret may claim it).
 */
export const OTHER_TEAM = "T0OTHER01";
export const STRANGER_TEAM = "T0STRANGE";

/**
 * A generated run's size in `mode`: the OAuth copy of a suite runs a third of the single
 * mode's cases where they exercise the same parsing (its own paths are tested in full).
 */
export function runsIn(mode: SlackMode, numRuns: number): number {
  return mode === "oauth" ? Math.ceil(numRuns / 3) : numRuns;
}

/**
 * A member who started nothing: Slack only sends clicks and commands of people in the
 * workspace, so the hostile runs' third person is one too (a plain member, no role).
 */
export const NOBODY = "U0NOBODY1";

export async function startHostileStack(mode: SlackMode = "single"): Promise<HostileStack> {
  const watch = watchProcess();
  // Without FFmpeg: the runs' model of what becomes a job is the Note Service's own rules
  // (`classifyFile` as it is without FFmpeg); prepare-recordings.test.ts covers FFmpeg.
  const stack = await startStack(
    { FFMPEG_PATH: "/nonexistent/ffmpeg" },
    mode === "oauth"
      ? {
          mode,
          teams: [
            { id: OTHER_TEAM, name: "Other" },
            { id: STRANGER_TEAM, name: "Strange" },
          ],
        }
      : {},
  );
  if (mode === "oauth") await stack.installWorkspace({ team: OTHER_TEAM });
  stack.fake.addUser({ id: NOBODY, name: "nobody", real_name: "No Body", locale: "en-US" });
  return {
    stack,
    watch,
    get secrets() {
      return [
        ...stack.secrets(),
        ...(mode === "oauth" ? installTokens(stack.fake, OTHER_TEAM) : []),
      ];
    },
    async stop() {
      await stack.stop();
      watch.dispose();
    },
  };
}

/** Sends one request, timing it; a request left unanswered is aborted instead of hanging. */
export async function timed(
  send: (signal: AbortSignal) => Promise<SlackAppResponse>,
  giveUpMs = ANSWER_WITHIN_MS + 1_000,
): Promise<{ res: SlackAppResponse; ms: number }> {
  const started = performance.now();
  const res = await send(AbortSignal.timeout(giveUpMs)).catch(
    (error: unknown): SlackAppResponse => ({
      status: -1,
      headers: new Headers(),
      body: `no answer: ${String(error)}`,
      json: undefined,
    }),
  );
  return { res, ms: performance.now() - started };
}

/** The app answered, without a server error, within a few seconds. */
export function expectAnswered(answer: { res: SlackAppResponse; ms: number }, what = "") {
  const { res, ms } = answer;
  expect(res.status, `${what} answered ${res.status} ${res.body.slice(0, 200)}`).toBeGreaterThan(0);
  expect(res.status, `${what} answered ${res.status} ${res.body.slice(0, 200)}`).toBeLessThan(500);
  expect(ms, `${what} took ${Math.round(ms)} ms`).toBeLessThan(ANSWER_WITHIN_MS);
}

export function healthUrl(stack: Stack): string {
  return stack.url.replace(/\/slack\/events$/, "/healthz");
}

/** File ids of every "job created" log line so far (the job service logs each creation). */
export function createdJobFiles(stack: Stack): string[] {
  const files: string[] = [];
  for (const line of stack.logs) {
    if (!line.includes('"job created"')) continue;
    const entry = JSON.parse(line) as { msg?: string; file?: string };
    if (entry.msg === "job created" && entry.file !== undefined) files.push(entry.file);
  }
  return files;
}

export function activeJobCount(stack: Stack): Promise<number> {
  return stack.app.jobs.repo.listActiveIds().then((ids) => ids.length);
}

/** Log lines at level fatal (60) or above, or holding a secret; empty when all is well. */
export function logProblems(h: HostileStack, from = 0): string[] {
  const problems: string[] = [];
  for (const line of h.stack.logs.slice(from)) {
    const level = (JSON.parse(line) as { level?: number }).level ?? 0;
    if (level >= 60) problems.push(`fatal: ${line.slice(0, 300)}`);
    for (const secret of h.secrets) {
      if (line.includes(secret)) problems.push(`secret in log: ${line.slice(0, 120)}…`);
    }
  }
  return problems;
}

/**
 * What every hostile test file checks once its requests are done: the process answers its
 * health check on the same port, nothing escaped as an unhandled rejection or uncaught
 * exception, no fatal log line, no secret in the logs.
 */
export async function expectProcessIntact(h: HostileStack) {
  const health = await fetch(healthUrl(h.stack), { signal: AbortSignal.timeout(3_000) });
  expect(health.status).toBe(200);
  expect(h.watch.describe()).toEqual([]);
  expect(logProblems(h)).toEqual([]);
}

/**
 * What Slack turns into a ping or a link: `<!here>`, `<!channel>`, `<!everyone>`,
 * `<!subteam^…>`, `<@U…>`, `<#C…>` (with an optional `|label`), and bare `@here`-style
 * broadcasts. A cut-off fragment such as `<!her…` pings nobody; it has a test of its own.
 */
const LIVE_MENTION =
  /<(!(here|channel|everyone)|!subteam\^[A-Z0-9]+|@[UW][A-Z0-9]+|#[CG][A-Z0-9]+)(\|[^>]*)?>|(?<![\w＠])@(channel|here|everyone)\b/i;
const CONTROL = /[^\P{Cc}\t\n]/u;

/** Text a user sees must say something and carry no control characters. */
export function expectReadableText(text: string, what: string) {
  expect(text.trim(), `${what} is empty`).not.toBe("");
  expect(CONTROL.test(text), `${what} holds a control character: ${JSON.stringify(text)}`).toBe(
    false,
  );
}

/**
 * Message text must also ping nobody. (Modal error strings are plain text, where Slack
 * links nothing: those only need to be readable.)
 */
export function expectInertText(text: string, what: string) {
  expectReadableText(text, what);
  expect(LIVE_MENTION.test(text), `${what} holds a live mention: ${text.slice(0, 300)}`).toBe(
    false,
  );
}

/** Bot replies in a thread (everything after the parent the bot did not post). */
export function botReplies(stack: Stack, ts: string): FakeMessage[] {
  return stack.thread(ts).filter((m) => m.ts !== ts && m.bot_id !== undefined);
}

/** Ephemeral messages to `user` after index `from`. */
export function ephemeralsFor(stack: Stack, user: string, from: number): FakeEphemeral[] {
  return stack.fake.ephemerals.slice(from).filter((e) => e.user === user);
}

/**
 * Waits (briefly) for something that should happen; undefined when it did not. Reads every
 * few milliseconds: most cases wait for a reply that comes within ten.
 */
export function within<T>(
  read: () => T | undefined | Promise<T | undefined>,
  ms = 1_500,
): Promise<T | undefined> {
  return eventually(read, (value) => value !== undefined, {
    timeoutMs: ms,
    intervalMs: 2,
    orLast: true,
  });
}

/** Alice uploads a real recording to the channel, as in the upload journey. */
export async function uploadRecording(stack: Stack, name: string) {
  const { ts, file } = await shareRecording(stack, name);
  return { ts, file };
}

async function waitForButton(stack: Stack, ts: string, actionId: string) {
  const status = await eventually(
    () => statusMessage(stack.thread(ts)),
    (m) => buttonValue(m, actionId) !== undefined,
  );
  return { statusTs: status?.ts ?? "", jobId: buttonValue(status, actionId) ?? "" };
}

async function click(stack: Stack, actionId: string, jobId: string, messageTs: string) {
  const payload = blockActionPayload({
    actionId,
    value: jobId,
    user: ALICE,
    channel: CHANNEL,
    messageTs,
  });
  expect((await sendAction(stack.url, SIGNING_SECRET, payload)).status).toBe(200);
}

/** Real jobs to forge against: one waiting for names, one done, one canceled. */
export interface RealJobs {
  naming: string;
  done: string;
  canceled: string;
}

/** Makes three real jobs through real uploads and clicks. */
export async function makeRealJobs(stack: Stack): Promise<RealJobs> {
  const a = await uploadRecording(stack, "hostile-naming.m4a");
  const b = await uploadRecording(stack, "hostile-done.mp3");
  const c = await uploadRecording(stack, "hostile-canceled.wav");
  const naming = await waitForButton(stack, a.ts, ACTIONS.nameSpeakers);
  const toSkip = await waitForButton(stack, b.ts, ACTIONS.skipNaming);
  // Canceled once it waits for names, clicked until it takes: a Cancel clicked while a
  // step held the job used to be lost (the regression test in slack-actions.test.ts).
  await waitForButton(stack, c.ts, ACTIONS.nameSpeakers);
  const toCancel = await waitForButton(stack, c.ts, ACTIONS.cancel);
  await click(stack, ACTIONS.skipNaming, toSkip.jobId, toSkip.statusTs);
  for (let attempt = 0; attempt < 5; attempt++) {
    await click(stack, ACTIONS.cancel, toCancel.jobId, toCancel.statusTs);
    const canceled = await within(async () => {
      const job = await stack.job(toCancel.jobId);
      return job?.stage === "canceled" ? job : undefined;
    }, 500);
    if (canceled !== undefined) break;
  }
  await eventually(
    () => stack.job(toSkip.jobId),
    (job) => job?.stage === "done",
  );
  await eventually(
    () => stack.job(toCancel.jobId),
    (job) => job?.stage === "canceled",
  );
  return { naming: naming.jobId, done: toSkip.jobId, canceled: toCancel.jobId };
}
