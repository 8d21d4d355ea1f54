/**
 * What the fleet benchmark's processes share: the code-under-test loader (a source root
 * given at run time, so one run can measure two checkouts side by side), the seeded stage
 * mix, the manifest the seeder leaves for the others, and the meeting dialogs.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Dialog } from "../../src/notetaker/index.ts";
import { BACKOFFS } from "../../src/util/backoff.ts";

type JobsModule = typeof import("../../src/jobs/index.ts");
type NotetakerModule = typeof import("../../src/notetaker/index.ts");
type StoreModule = typeof import("../../src/store/index.ts");

/** The job layer, client and store of the checkout at `root` (its `src/`). */
export interface CodeUnderTest {
  root: string;
  jobs: JobsModule;
  notetaker: NotetakerModule;
  store: StoreModule;
}

/**
 * Imports `src/jobs`, `src/notetaker` and `src/store` of the checkout at `root`. Typed as
 * this checkout's modules: the API used by the benchmark (`createJobs`, `repo.create`,
 * `runner.start/stop/stats`, `openStore(url, { keyPrefix })`) must be the same in both.
 */
export async function loadCode(root: string): Promise<CodeUnderTest> {
  const at = (path: string) => pathToFileURL(join(root, path)).href;
  const [jobs, notetaker, store] = await Promise.all([
    import(at("src/jobs/index.ts")) as Promise<JobsModule>,
    import(at("src/notetaker/index.ts")) as Promise<NotetakerModule>,
    import(at("src/store/index.ts")) as Promise<StoreModule>,
  ]);
  return { root, jobs, notetaker, store };
}

/** The bench's poll schedule: production's (2 s doubling to a 15 s cap). */
export const POLL_INITIAL_MS = BACKOFFS.notePoll.baseMs;
export const POLL_MAX_MS = BACKOFFS.notePoll.maxMs;

export const SEED_STAGES = ["transcribing", "naming", "writing"] as const;
export type SeedStage = (typeof SEED_STAGES)[number];

/** Which job is in which stage, and the remote task it polls: written by the seeder. */
export interface ManifestEntry {
  id: string;
  stage: SeedStage;
  taskId?: string;
}

/** What `fleet-seed.ts` prints as its last line. */
export interface SeedReport {
  jobs: number;
  byStage: Record<SeedStage, number>;
  /** Submitting the audio and note tasks to the emulator. */
  submitSeconds: number;
  /** Writing the records with the repository of the code under test. */
  writeSeconds: number;
  /** JSON size of the dialogs held by naming and writing jobs. */
  dialogKiB: { min: number; median: number; max: number };
  /** The latest `wakeAt` written (epoch ms): by then every polling job is in its rhythm. */
  lastWakeAt: number;
  /** `repo.countActiveByStage()` timed 20 times after seeding (what `/metrics` reads). */
  countActiveMs?: { median: number; max: number };
}

/** The stage of each job in turn, in the proportions of `mix` (percent), evenly spread. */
export function stagePlan(n: number, mix: readonly number[]): SeedStage[] {
  const total = mix.reduce((a, b) => a + b, 0);
  const counts = SEED_STAGES.map((_, i) => Math.round((n * (mix[i] ?? 0)) / total));
  counts[0] = n - (counts[1] ?? 0) - (counts[2] ?? 0);
  // Deal the stages out like cards, so every stretch of the seeding has the same mix.
  const plan: SeedStage[] = [];
  const dealt = [0, 0, 0];
  for (let i = 0; i < n; i++) {
    let best = 0;
    let bestLag = Number.NEGATIVE_INFINITY;
    for (let s = 0; s < SEED_STAGES.length; s++) {
      const lag = ((counts[s] ?? 0) * (i + 1)) / n - (dealt[s] ?? 0);
      if (lag > bestLag) {
        best = s;
        bestLag = lag;
      }
    }
    dealt[best] = (dealt[best] ?? 0) + 1;
    plan.push(SEED_STAGES[best] ?? "transcribing");
  }
  return plan;
}

/** A small, fast, seeded PRNG (mulberry32): the same dialogs on every run. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  "chúng ta cần chốt lịch phát hành ứng dụng di động trong tuần này vì nhà cung cấp thanh " +
  "toán đã đổi môi trường thử nghiệm nên nhóm bị chậm hai ngày bộ phận hỗ trợ đồng ý nếu " +
  "các trang hướng dẫn được cập nhật trước khi ra mắt ngân sách nghiên cứu khách hàng quý " +
  "này là mười hai nghìn đô la so we can recruit twenty people for the interviews and split " +
  "them between the design team and the product team legal needs to review the consent form " +
  "before Friday I will send the draft to the channel today okay let's move on to the next " +
  "item on the agenda which is the hiring plan for the second half of the year"
).split(" ");

/**
 * A diarized transcript of a meeting of `hours`: 3–6 speakers taking turns in segments of
 * 0.5–3 s (as a speech service cuts them, by phrase), speaking 15–19 characters a second
 * of Vietnamese mixed with English, with short pauses. About 210 KiB of JSON an hour.
 */
export function meetingDialog(hours: number, seed: number): Dialog {
  const next = random(seed);
  const speakers = 3 + Math.floor(next() * 4);
  const end = hours * 3600;
  const entries: Dialog = [];
  let at = next() * 3;
  let speaker = 0;
  let word = Math.floor(next() * WORDS.length);
  while (at < end) {
    // A turn: one speaker says a few phrases in a row.
    if (next() < 0.35) speaker = Math.floor(next() * speakers);
    const seconds = 0.5 + next() * 2.5;
    const chars = Math.round(seconds * (15 + next() * 4));
    let text = "";
    while (text.length < chars) {
      text += (text === "" ? "" : " ") + WORDS[word % WORDS.length];
      word++;
    }
    entries.push({
      speaker_id: `speaker_${speaker + 1}`,
      start_seconds: round2(at),
      end_seconds: round2(at + seconds),
      text: `${text.charAt(0).toUpperCase()}${text.slice(1)}.`,
    });
    at += seconds + (next() < 0.05 ? 1 + next() * 5 : 0.05 + next() * 0.25);
  }
  return entries;
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

/** Epoch milliseconds with sub-millisecond precision, comparable across processes. */
export const epochNow = () => performance.timeOrigin + performance.now();
