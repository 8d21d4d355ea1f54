import { ACTIONS, speakerBlock, VIEWS } from "../../src/slack/ids.ts";
import {
  ALICE,
  buttonValue,
  clickButton,
  eventually,
  filledModal,
  SIGNING_SECRET,
  type Stack,
  shareRecording,
  startStack,
  statusMessage,
} from "../e2e/stack.ts";
import { viewSubmissionPayload } from "../fake-slack/slack-payloads.ts";
import { sendViewSubmission } from "../fake-slack/slack-request.ts";
import type { RunFacts } from "./report.ts";
import { median, percentile } from "./support.ts";

/**
 * Issue 34: from a person's naming submission to "Writing the notes…" on their screen, on
 * Slack's bad days: its answers lost (it does `chat.update`, `chat.postMessage` and the
 * upload completions, then answers 503 or drops the connection), or every Web API call
 * answering in 1.2 s, or both. The real app (in process, SQLite) against the fake Slack
 * at Slack's own rate tiers and the bot's production budget, pacing and failure policy.
 */
export type NamingScenario = "lost" | "slow" | "lost+slow";

export interface NamingEffectOptions {
  scenarios: NamingScenario[];
  /** Submissions measured per scenario. */
  runs: number;
  /** Jobs named at once (their prompts' redraws compete for Slack's budget). */
  parallel: number;
}

export interface NamingEffectResult {
  scenario: NamingScenario;
  runs: number;
  /** From the submission sent to "Writing the notes…" drawn at Slack, ms. */
  effectMs: number[];
  /** The submission's answer (the modal closes), ms. */
  ackMs: number[];
  /** Submissions whose effect never showed within {@link GIVE_UP_MS}. */
  missing: number;
  /** Sentences asking a person to try again because the job was busy. */
  busy: number;
}

const SLOW_MS = 1_200;
const GIVE_UP_MS = 30_000;
const WRITING = /Writing the notes…|Posting the notes…|Notes ready\./;
const BUSY = /busy right now|try again in a moment/i;

export async function benchNamingEffect(o: NamingEffectOptions): Promise<NamingEffectResult[]> {
  const results: NamingEffectResult[] = [];
  for (const scenario of o.scenarios) results.push(await runScenario(scenario, o));
  return results;
}

async function runScenario(
  scenario: NamingScenario,
  o: NamingEffectOptions,
): Promise<NamingEffectResult> {
  const stack = await startStack(
    { FFMPEG_PATH: "/nonexistent/ffmpeg", POLL_INITIAL_MS: "200", POLL_MAX_MS: "1000" },
    {
      slackProxy: true,
      rateScale: 1,
      runner: { statusThrottleMs: 5_000 },
      failurePolicy: { maxAttempts: 8, baseDelayMs: 2_000, maxDelayMs: 30_000 },
    },
  );
  const result: NamingEffectResult = {
    scenario,
    runs: 0,
    effectMs: [],
    ackMs: [],
    missing: 0,
    busy: 0,
  };
  try {
    if (scenario !== "slow") {
      stack.slackProxy?.add({ methods: ["chat.update", "chat.postMessage"], fault: "lose_503" });
      stack.slackProxy?.add({ methods: ["files.completeUploadExternal"], fault: "lose_reset" });
    }
    if (scenario !== "lost") stack.fake.knobs.latencyMs = () => SLOW_MS;
    for (let n = 0; n < o.runs; n += o.parallel) {
      const round = Array.from({ length: Math.min(o.parallel, o.runs - n) }, (_, i) => n + i);
      const measured = await Promise.all(round.map((i) => nameOne(stack, `${scenario}-${i}`)));
      for (const m of measured) {
        result.runs += 1;
        result.ackMs.push(m.ackMs);
        if (m.effectMs === undefined) result.missing += 1;
        else result.effectMs.push(m.effectMs);
      }
      process.stderr.write(`naming-effect ${scenario}: ${JSON.stringify(measured)}\n`);
    }
    result.busy = stack.fake.ephemerals.filter((e) => BUSY.test(JSON.stringify(e))).length;
    return result;
  } finally {
    stack.slackProxy?.heal();
    stack.fake.knobs.latencyMs = undefined;
    await stack.stop();
  }
}

/** One recording to its naming prompt, named; how long until the person saw the effect. */
async function nameOne(stack: Stack, name: string) {
  const { ts } = await shareRecording(stack, `${name}.m4a`);
  const prompt = await eventually(
    () => statusMessage(stack.thread(ts)),
    (m) => buttonValue(m, ACTIONS.nameSpeakers) !== undefined,
    { timeoutMs: 120_000, intervalMs: 20, what: `${name}'s naming prompt` },
  );
  const jobId = buttonValue(prompt, ACTIONS.nameSpeakers) ?? "";
  const at = { jobId, statusTs: prompt?.ts ?? "", threadTs: ts };
  await clickButton(stack, ACTIONS.nameSpeakers, at, ALICE);
  await filledModal(stack, VIEWS.speakerNames, at.jobId);
  const payload = viewSubmissionPayload({
    callbackId: VIEWS.speakerNames,
    privateMetadata: at.jobId,
    values: {
      [speakerBlock.name("speaker_1")]: { name: { type: "plain_text_input", value: "Lan Anh" } },
    },
    user: ALICE,
  });
  const sentAt = Date.now();
  await sendViewSubmission(stack.url, SIGNING_SECRET, payload);
  const ackMs = Date.now() - sentAt;
  const shown = await eventually(
    () =>
      stack.fake.calls.find(
        (c) =>
          c.at >= sentAt &&
          c.status === 200 &&
          c.error === undefined &&
          c.method === "chat.update" &&
          c.args.ts === at.statusTs &&
          WRITING.test(String(c.args.text ?? "")),
      ),
    (call) => call !== undefined,
    { timeoutMs: GIVE_UP_MS, intervalMs: 20, orLast: true },
  );
  // Out of the way of the next runs: its delivery would keep Slack's budget busy.
  await stack.app.jobs.service.cancel(at.jobId, ALICE).catch(() => undefined);
  return { ackMs, effectMs: shown === undefined ? undefined : shown.at - sentAt };
}

export function renderNamingEffect(
  results: NamingEffectResult[],
  o: NamingEffectOptions,
  at: RunFacts,
): string {
  const s = (ms: number) => (Number.isFinite(ms) ? (ms / 1000).toFixed(2) : "—");
  const describe: Record<NamingScenario, string> = {
    lost: "answers lost",
    slow: "every call 1.2 s",
    "lost+slow": "both",
  };
  const rows = results.map((r) => {
    const p99 = percentile(r.effectMs, 99);
    const met = r.missing === 0 && r.busy === 0 && p99 < 3_000 ? "met" : "**missed**";
    return `| ${describe[r.scenario]} | ${r.runs} | ${s(median(r.effectMs))} | **${s(p99)}** | ${s(Math.max(...r.effectMs))} | ${s(median(r.ackMs))} / ${s(Math.max(...r.ackMs))} | ${r.missing} | ${r.busy} | ${met} |`;
  });
  return [
    "## 12. From a naming submission to “Writing the notes…” on Slack's bad days (issue 34)",
    "",
    `Measured ${at.date} UTC, load average ${at.load.toFixed(1)} at the start.`,
    "",
    "The real app (in process, SQLite) against the fake Slack enforcing Slack's rate tiers, the",
    "bot's budget at SLACK_RATE_SHARE=1, production's progress pacing (5 s) and failure policy",
    "(2 s doubling, 8 tries). Each run: a recording to its naming prompt, Name speakers, the",
    "modal filled and submitted; measured from the submission sent to the fake Slack carrying",
    "out the `chat.update` that shows “Writing the notes…” (or a later state) in the job's",
    `status message. ${o.parallel} jobs named at once, ${o.runs} submissions per row.`,
    "*Answers lost*: Slack does `chat.update` and `chat.postMessage` then answers 503, and resets",
    "the connection after the upload completions, for the whole row (so the naming prompt's",
    "redraw keeps failing and being tried again). *Every call 1.2 s*: every Web API method",
    "answers after 1.2 s. `support/bench/naming-effect.ts`.",
    "",
    "| Slack | runs | median (s) | p99 (s) | max (s) | submission answered, median / max (s) | never shown | “busy” sentences | target p99 < 3 s |",
    "|---|---:|---:|---:|---:|---|---:|---:|---|",
    ...rows,
  ].join("\n");
}
