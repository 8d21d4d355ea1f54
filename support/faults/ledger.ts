/**
 * What the fake Slack recorded, read as the promise: every upload made exactly one
 * job (one status message) or one sentence refusing it; every job ended once; each post —
 * status, note parts, DOCX, transcripts, canvas, any notice — exists once.
 */
import { expect } from "vitest";
import { CHANNEL } from "../e2e/stack.ts";
import type { FakeMessage } from "../fake-slack/fake-slack-types.ts";
import type { FaultWorld } from "./fault-world.ts";
import type { Upload } from "./people.ts";

/** One upload's outcome as the channel shows it. */
export interface UploadOutcome {
  name: string;
  ts: string;
  /** The job's id, when it has a status message. */
  jobId: string | undefined;
  statuses: number;
  /** The bot's other messages in the thread (notices, refusals), by text. */
  notices: string[];
  /** How the job ended, from the bot's log: one entry per ending (`done`, `failed`…). */
  endings: string[];
}

const ENDED = /"msg":"job stage changed"/;
/** The status a job gets when the store lost its record (Redis restarted empty). */
const LOST = "notes were lost when the bot's storage was reset";
const TERMINAL = new Set(["done", "failed", "canceled"]);

const kindOf = (m: FakeMessage) => m.metadata?.event_payload.kind;
const fromBot = (world: FaultWorld, m: FakeMessage) =>
  m.bot_id !== undefined || m.user === world.fake.botUserId;

/** The outcome of each upload, read from the fake Slack and the bot's log. */
export function outcomes(world: FaultWorld, uploads: readonly Upload[]): UploadOutcome[] {
  const lines = world.lines().filter((line) => ENDED.test(line));
  return uploads.map((u) => {
    const thread = world.fake.thread(CHANNEL, u.ts).filter((m) => m.ts !== u.ts);
    const bots = thread.filter((m) => fromBot(world, m));
    const statuses = bots.filter((m) => kindOf(m) === "status");
    const jobId = statuses[0]?.metadata?.event_payload.job_id as string | undefined;
    const notices = bots
      .filter((m) => kindOf(m) === undefined && (m.files ?? []).length === 0)
      .map((m) => m.text);
    const logged =
      jobId === undefined
        ? []
        : lines
            .filter((line) => line.includes(`"jobId":"${jobId}"`))
            .map((line) => /"to":"([a-z_]+)"/.exec(line)?.[1] ?? "")
            .filter((to) => TERMINAL.has(to));
    // A job whose record the store lost has no stage to change: its status says so.
    const lost = statuses.some((m) => m.text.includes(LOST)) ? ["lost"] : [];
    const endings = logged.length > 0 ? logged : lost;
    return { name: u.name, ts: u.ts, jobId, statuses: statuses.length, notices, endings };
  });
}

/** Whether every upload has its one job ended, or one refusal. */
export function allSettled(world: FaultWorld, uploads: readonly Upload[]): boolean {
  return outcomes(world, uploads).every(
    (o) => (o.statuses === 1 && o.endings.length > 0) || (o.statuses === 0 && o.notices.length > 0),
  );
}

/** How a job may end: `done`, `failed` (one failure sentence), `lost` (the store's data was). */
export type Ending = "done" | "failed" | "canceled" | "lost";

/**
 * Asserts the promise for each upload; `allowed` says how a job may end (`done`
 * unless the fault allows a failure sentence). Returns the outcomes for the report.
 */
export function expectEachOnce(
  world: FaultWorld,
  uploads: readonly Upload[],
  allowed: readonly Ending[] = ["done"],
): UploadOutcome[] {
  const all = outcomes(world, uploads);
  for (const o of all) {
    const where = `${o.name} (thread ${o.ts})`;
    if (o.statuses === 0) {
      // No job: the person was told, once.
      expect(o.notices, `${where}: a refusal the person saw`).toHaveLength(1);
      continue;
    }
    expect(o.statuses, `${where}: one status message`).toBe(1);
    expect(o.endings, `${where}: the job ended once`).toHaveLength(1);
    expect(allowed, `${where}: how it ended`).toContain(o.endings[0]);
    expect(new Set(o.notices).size, `${where}: each notice once: ${o.notices}`).toBe(
      o.notices.length,
    );
    if (o.endings[0] === "done") expectOneCopyOfEachOutput(world, o);
  }
  return all;
}

/** The note parts, files and canvas of a done job, each exactly once. */
function expectOneCopyOfEachOutput(world: FaultWorld, o: UploadOutcome): void {
  const where = `${o.name} (thread ${o.ts})`;
  const thread = world.fake.thread(CHANNEL, o.ts);
  const parts = thread
    .filter((m) => kindOf(m) === "note_part")
    .map((m) => m.metadata?.event_payload.part as number);
  expect(parts.length, `${where}: note parts`).toBeGreaterThan(0);
  expect(parts, `${where}: each note part once, in order`).toEqual([...parts.keys()]);
  const stem = o.name.replace(/\.[^.]+$/, "");
  const files = world.fake.uploads
    .filter((u) => u.thread_ts === o.ts && u.completed && u.deleted !== true)
    .map((u) => u.filename)
    .sort();
  expect(files, `${where}: one DOCX and one transcript`).toEqual([
    `${stem} - notes.docx`,
    `${stem} - transcript.txt`,
    `${stem} - transcript.vtt`,
  ]);
  const canvases = [...world.fake.canvases.values()].filter((c) =>
    c.title.startsWith(`${o.name} · `),
  );
  expect(canvases, `${where}: one canvas`).toHaveLength(1);
}
