import type { Job } from "../../src/jobs/index.ts";
import { ACTIONS, speakerBlock, VIEWS } from "../../src/slack/ids.ts";
import { timedBeside } from "../e2e/beside-probe.ts";
import { retryAfterWatch } from "../e2e/retry-after-watch.ts";
import {
  buttonValue,
  eventually,
  filledModal,
  type Stack,
  startStack,
  TEST_RATE_SCALE,
} from "../e2e/stack.ts";
import {
  blockActionPayload,
  fileShareMessageEvent,
  newTriggerId,
  viewSubmissionPayload,
} from "../fake-slack/slack-payloads.ts";
import { recordingBytes } from "../fakes/recording-bytes.ts";
import type { RunFacts } from "./report.ts";

/**
 * A busy workspace against a fake Slack that enforces Slack's rate tiers: `jobs`
 * recordings uploaded at once over `channels` channels, every Note Service task finishing
 * at about the same moment, people skipping or naming speakers as their prompts appear.
 * Used by the load test (tiers scaled up, to run in seconds) and the benchmark (Slack's
 * tiers as documented).
 */
export interface SlackLoadOptions {
  jobs: number;
  channels: number;
  /** Slack's tiers and the bot's budget times this (1: as Slack documents them). */
  rateScale: number;
  /**
   * 429s Slack answers besides its tiers' (Slack may rate-limit below them: "limits can
   * change"), once the uploads are in: the bot must wait each Retry-After out.
   */
  extra429?: { method: string; count: number; retryAfter: number } | undefined;
  /** Of the jobs, how many get their speakers named through the modal (the rest: Skip). */
  named: number;
  /** How long each Note Service task runs (they all finish within it of each other). */
  taskMs: number;
  /** The runner's progress throttle (production: 5 s). */
  statusThrottleMs: number;
  /** Give up after this long. */
  timeoutMs: number;
}

export interface SlackLoadResult {
  jobs: number;
  done: number;
  failed: number;
  /** Uploads that never became a job. */
  lost: number;
  /** Jobs whose thread holds a note part, a DOCX or a status message twice. */
  duplicated: number;
  /**
   * 429s the fake answered, and calls the bot sent inside a Retry-After it had received
   * (watched on the bot's own transport: support/e2e/retry-after-watch.ts).
   */
  rateLimited: number;
  insideRetryAfter: number;
  /** `views.open` calls the fake refused (a trigger_id older than Slack's 3 s, say). */
  viewsOpenRefused: number;
  /**
   * The slowest ack of the uploads' events, all sent in the same instant (Slack sends an
   * event again when its ack takes over 3 s: harmless, the upload is claimed once).
   */
  slowestUploadAckMs: number;
  /** The slowest answer to a person (clicks, submissions), ms. */
  slowestAckMs: number;
  /**
   * The most an answer to a person (a click, a submission) took beyond a `/healthz` sent to
   * the same server in the same instant: the time the app spent on it, less what any
   * request waited then on a loaded machine, ms.
   */
  slowestAckBeyondProbeMs: number;
  /** The slowest `views.open` after its click, ms (a trigger lives 3 s). */
  slowestViewsOpenMs: number;
  /** From a job's stage change to the next draw of its status message, ms. */
  staleness: { p50Ms: number; p95Ms: number; maxMs: number; changes: number };
  /** From the first upload to the last job's end. */
  drainMinutes: number;
  /** Slack calls by method. */
  calls: Record<string, number>;
}

const LOAD_USER = "U0LOAD0001";
/** How often each of the jobs' waits for its prompt (and its modal) looks. */
const PROMPT_POLL_MS = 50;
const channelId = (n: number) => `C0LOAD${String(n).padStart(4, "0")}`;

/** Runs the scenario on a fresh stack and measures it. */
export async function runSlackLoad(o: SlackLoadOptions): Promise<SlackLoadResult> {
  const changes: { jobId: string; at: number }[] = [];
  const watch = retryAfterWatch();
  const stack = await startStack(
    {
      MAX_ACTIVE_JOBS: String(o.jobs * 2),
      MAX_ACTIVE_JOBS_PER_USER: String(o.jobs * 2),
      MAX_ACTIVE_JOBS_PER_CHANNEL: String(o.jobs * 2),
      POLL_INITIAL_MS: "200",
      POLL_MAX_MS: "1000",
      FFMPEG_PATH: "/nonexistent/ffmpeg",
    },
    {
      rateScale: o.rateScale,
      runner: { statusThrottleMs: o.statusThrottleMs },
      onStageChange: (job) => changes.push({ jobId: job.id, at: Date.now() }),
      slackFetch: watch.fetch,
    },
  );
  try {
    return { ...(await drive(stack, o, changes)), insideRetryAfter: watch.breaches.length };
  } finally {
    await stack.stop();
  }
}

async function drive(
  stack: Stack,
  o: SlackLoadOptions,
  changes: { jobId: string; at: number }[],
): Promise<Omit<SlackLoadResult, "insideRetryAfter">> {
  stack.fake.addUser({ id: LOAD_USER, name: "lan", real_name: "Lan Le", locale: "en-US" });
  for (let c = 0; c < o.channels; c++) {
    stack.fake.addChannel({ id: channelId(c), name: `load-${c}`, members: [LOAD_USER] });
  }
  stack.emulator.knobs.pollsToComplete = 1;
  stack.emulator.knobs.audioDurationMs = o.taskMs;
  stack.emulator.knobs.noteDurationMs = o.taskMs / 4;
  const uploadAcks: number[] = [];
  const acks: Timed[] = [];
  const opens: number[] = [];
  const started = Date.now();
  const uploads = await Promise.all(
    Array.from({ length: o.jobs }, async (_, n) => {
      const channel = channelId(n % o.channels);
      const name = `meeting-${n}.m4a`;
      const file = stack.fake.addFile({
        name,
        bytes: recordingBytes(name, 4096, n % 250),
        user: LOAD_USER,
      });
      const message = stack.fake.shareFile(file, { channel, user: LOAD_USER });
      const event = fileShareMessageEvent(file, { channel, user: LOAD_USER, ts: message.ts });
      const sent = await stack.deliver.event(event);
      if (!sent.acked) throw new Error(`the upload of ${name} was not acked`);
      uploadAcks.push(sent.ms);
      return { channel, ts: message.ts, n };
    }),
  );
  if (o.extra429 !== undefined) stack.fake.knobs.rateLimit = { ...o.extra429 };
  const jobs = await Promise.all(
    uploads.map((u) => answerPrompt(stack, u, u.n < o.named, acks, opens, o.timeoutMs)),
  );
  const ended = await endOf(stack, jobs, changes, o.timeoutMs);
  const drainMs = Date.now() - started;
  return measure(stack, o, ended, changes, { uploadAcks, acks, opens, drainMs });
}

/** Waits for a job's naming prompt, then skips it or names its speakers in the modal. */
async function answerPrompt(
  stack: Stack,
  upload: { channel: string; ts: string },
  name: boolean,
  acks: Timed[],
  opens: number[],
  timeoutMs: number,
): Promise<string> {
  // A hundred of these wait at once, each reading its thread: every 50 ms, not every 10
  // (that was a fifth of a second of CPU per second of waiting). A prompt answered up to
  // 50 ms later changes nothing measured: acks and views.open are timed from the click.
  const at = await eventually(
    () => buttonOnIn(stack, upload.channel, upload.ts),
    (found) => found !== undefined,
    { timeoutMs, intervalMs: PROMPT_POLL_MS, what: `the naming prompt in ${upload.channel}` },
  );
  if (at === undefined) throw new Error("no prompt");
  const click = async (actionId: string, triggerId?: string) => {
    const payload = blockActionPayload({
      actionId,
      value: at.jobId,
      user: LOAD_USER,
      channel: upload.channel,
      messageTs: at.statusTs,
      threadTs: upload.ts,
      ...(triggerId === undefined ? {} : { triggerId }),
    });
    const clicked = await timedBeside(stack.url, () => stack.deliver.interaction(payload));
    if (!clicked.answer.acked) throw new Error(`the click on ${actionId} was not acked`);
    acks.push(clicked);
    return clicked.started;
  };
  if (!name) {
    await click(ACTIONS.skipNaming);
    return at.jobId;
  }
  const trigger = newTriggerId();
  const clickedAt = await click(ACTIONS.nameSpeakers, trigger);
  const open = await eventually(
    () => stack.fake.callsTo("views.open").find((c) => c.args.trigger_id === trigger),
    (call) => call !== undefined,
    { timeoutMs, intervalMs: PROMPT_POLL_MS },
  );
  opens.push((open?.at ?? Date.now()) - clickedAt);
  const modal = await filledModal(stack, VIEWS.speakerNames, at.jobId);
  const submission = () =>
    stack.deliver.interaction(
      viewSubmissionPayload({
        callbackId: VIEWS.speakerNames,
        privateMetadata: at.jobId,
        ...(modal?.view_id === undefined ? {} : { viewId: modal.view_id }),
        values: {
          [speakerBlock.name("speaker_1")]: { name: { type: "plain_text_input", value: "Lan" } },
        },
        user: LOAD_USER,
      }),
    );
  const submitted = await timedBeside(stack.url, submission);
  if (!submitted.answer.acked) throw new Error("the speaker names' submission was not acked");
  acks.push(submitted);
  return at.jobId;
}

/** An answer's time, and how much of it went beyond a `/healthz` sent beside it. */
type Timed = Awaited<ReturnType<typeof timedBeside>>;

/** The job's Skip button, in any channel, once its status message offers it. */
function buttonOnIn(stack: Stack, channel: string, threadTs: string) {
  for (const message of stack.fake.thread(channel, threadTs)) {
    const jobId = buttonValue(message, ACTIONS.skipNaming);
    if (jobId !== undefined) return { jobId, statusTs: message.ts };
  }
  return undefined;
}

/**
 * Waits for every job to end, and returns them as they ended. A job is read again when it
 * changed stage (`changes` names it), and every job still running once a second besides:
 * reading all hundred jobs from the store on any one's change cost more CPU than the jobs
 * themselves.
 */
async function endOf(
  stack: Stack,
  ids: string[],
  changes: { jobId: string; at: number }[],
  timeoutMs: number,
): Promise<(Job | undefined)[]> {
  const ended = new Map<string, Job>();
  let changesRead = 0;
  let readAt = 0;
  await eventually(
    async () => {
      const everyJob = Date.now() - readAt >= 1000;
      if (!everyJob && changes.length === changesRead) return ended.size;
      const changed = new Set(changes.slice(changesRead).map((c) => c.jobId));
      changesRead = changes.length;
      if (everyJob) readAt = Date.now();
      const running = ids.filter((id) => !ended.has(id) && (everyJob || changed.has(id)));
      for (const job of await Promise.all(running.map((id) => stack.job(id)))) {
        if (job !== undefined && !isRunning(job)) ended.set(job.id, job);
      }
      return ended.size;
    },
    (count) => count === ids.length,
    { timeoutMs, what: "every job to end" },
  );
  return ids.map((id) => ended.get(id));
}

function isRunning(job: Job): boolean {
  return job.stage !== "done" && job.stage !== "failed" && job.stage !== "canceled";
}

function measure(
  stack: Stack,
  o: SlackLoadOptions,
  ended: (Job | undefined)[],
  changes: { jobId: string; at: number }[],
  m: { uploadAcks: number[]; acks: Timed[]; opens: number[]; drainMs: number },
): Omit<SlackLoadResult, "insideRetryAfter"> {
  const jobs = ended.filter((job): job is Job => job !== undefined);
  const calls: Record<string, number> = {};
  for (const call of stack.fake.calls) calls[call.method] = (calls[call.method] ?? 0) + 1;
  const draws = drawsByJob(stack, jobs);
  const delays = changes.flatMap(({ jobId, at }) => {
    const next = draws.get(jobId)?.find((drawnAt) => drawnAt >= at);
    return next === undefined ? [] : [next - at];
  });
  return {
    jobs: o.jobs,
    done: jobs.filter((job) => job.stage === "done").length,
    failed: jobs.filter((job) => job.stage === "failed").length,
    lost: o.jobs - jobs.length,
    duplicated: jobs.filter((job) => isDuplicated(stack, job)).length,
    rateLimited: stack.fake.calls.filter((c) => c.status === 429).length,
    viewsOpenRefused: stack.fake.callsTo("views.open").filter((c) => c.error !== undefined).length,
    slowestUploadAckMs: Math.max(0, ...m.uploadAcks),
    slowestAckMs: Math.max(0, ...m.acks.map((a) => a.ms)),
    slowestAckBeyondProbeMs: Math.max(0, ...m.acks.map((a) => a.beyondMs)),
    slowestViewsOpenMs: Math.max(0, ...m.opens),
    staleness: { ...percentiles(delays), changes: delays.length },
    drainMinutes: m.drainMs / 60_000,
    calls,
  };
}

/** When each job's status message was posted or edited, in order. */
function drawsByJob(stack: Stack, jobs: Job[]): Map<string, number[]> {
  const byTs = new Map(jobs.map((job) => [job.statusTs, job.id]));
  const draws = new Map<string, number[]>();
  for (const call of stack.fake.calls) {
    if (call.status !== 200 || call.error !== undefined) continue;
    let jobId: string | undefined;
    if (call.method === "chat.update") jobId = byTs.get(String(call.args.ts));
    if (call.method === "chat.postMessage") {
      const metadata = JSON.stringify(call.args.metadata ?? "");
      if (metadata.includes('"status"')) jobId = jobs.find((job) => metadata.includes(job.id))?.id;
    }
    if (jobId !== undefined) draws.set(jobId, [...(draws.get(jobId) ?? []), call.at]);
  }
  return draws;
}

/** A note part, the DOCX or a status message posted twice in the job's thread. */
function isDuplicated(stack: Stack, job: Job): boolean {
  const seen = new Set<string>();
  for (const message of stack.fake.thread(job.origin.channelId, job.origin.threadTs)) {
    const payload = message.metadata?.event_payload as Record<string, unknown> | undefined;
    const docx = (message.files ?? []).some((file) => (file.name ?? "").endsWith(".docx"));
    if (payload?.job_id !== job.id && !docx) continue;
    const key = docx ? "docx" : `${String(payload?.kind)}:${String(payload?.part ?? "")}`;
    if (seen.has(key)) return true;
    seen.add(key);
  }
  return false;
}

function percentiles(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { p50Ms: at(0.5), p95Ms: at(0.95), maxMs: sorted.at(-1) ?? 0 };
}

/** The test's scenario: the benchmark's, with tiers scaled to run in seconds. */
export const LOAD_TEST: SlackLoadOptions = {
  jobs: 100,
  channels: 5,
  rateScale: 5 * TEST_RATE_SCALE,
  extra429: { method: "chat.update", count: 5, retryAfter: 1 },
  named: 10,
  taskMs: 3_000,
  statusThrottleMs: 5_000,
  timeoutMs: 240_000,
};

/** The benchmark's scenario: Slack's tiers as documented, production's progress throttle. */
export const LOAD_BENCH: SlackLoadOptions = {
  jobs: 100,
  channels: 5,
  rateScale: 1,
  named: 10,
  taskMs: 30_000,
  statusThrottleMs: 5_000,
  timeoutMs: 60 * 60_000,
};

/** The RESULTS.md section of a run of the benchmark. */
export function renderSlackLoad(r: SlackLoadResult, o: SlackLoadOptions, at: RunFacts): string {
  const s = (ms: number) => (ms / 1000).toFixed(1);
  const methods = Object.entries(r.calls)
    .sort(([, a], [, b]) => b - a)
    .map(([method, n]) => `${method} ${n}`)
    .join(", ");
  return [
    "## 8. A busy workspace within Slack's rate tiers (issue 22)",
    "",
    `Measured ${at.date} UTC, load average ${at.load.toFixed(1)} at the start.`,
    "",
    `${o.jobs} recordings uploaded at once in one workspace over ${o.channels} channels, against the`,
    "fake Slack enforcing Slack's rate tiers as documented (a token bucket per method and",
    "workspace, ~1 post a second per channel, 429 + Retry-After past them) with the bot's own",
    `budget at SLACK_RATE_SHARE=${o.rateScale}; every Note Service task runs ${o.taskMs / 1000} s, so they all`,
    `finish within seconds of each other; ${o.named} jobs have their speakers named in the modal, the`,
    "rest are skipped as their prompts appear; canvases and transcripts on (the channel",
    "defaults). `support/bench/slack-load.ts`; the load test runs the same with the tiers ×100.",
    "",
    "| jobs done / failed / lost / duplicated | 429s | calls inside a Retry-After | slowest upload event ack (s) | slowest ack to a person (s) | slowest views.open after its click (s) | status staleness p50 / p95 / max (s) | minutes to drain |",
    "|---|---:|---:|---:|---:|---:|---|---:|",
    `| ${r.done} / ${r.failed} / ${r.lost} / ${r.duplicated} | ${r.rateLimited} | ${r.insideRetryAfter} | ${s(r.slowestUploadAckMs)} | ${s(r.slowestAckMs)} | ${s(r.slowestViewsOpenMs)} | ${s(r.staleness.p50Ms)} / ${s(r.staleness.p95Ms)} / **${s(r.staleness.maxMs)}** | **${r.drainMinutes.toFixed(1)}** |`,
    "",
    "Status staleness: from a job's stage change to the next draw of its status message",
    `(${r.staleness.changes} changes). Slack calls made: ${methods}.`,
  ].join("\n");
}
