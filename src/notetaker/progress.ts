import { z } from "zod";
import type { Run } from "./finish-estimate.ts";

/**
 * The service gives `progress` no type or unit (docs/note-service.md): 0..1 is a fraction,
 * 0..100 a percentage, a string is shown as it is (and read as a number when it holds one).
 */
export interface Progress {
  /** 0..1 when the service gave something measurable. */
  fraction: number | null;
  /** What to show; for numbers a rounded percentage such as "40%". */
  label: string;
}

const PERCENT_TEXT = /^\s*(\d{1,3}(?:\.\d+)?)\s*%\s*$/;
const NUMBER_TEXT = /^\s*(\d{1,3}(?:\.\d+)?)\s*$/;

/** Normalises whatever the service put in `progress`; null when there is nothing to show. */
export function normalizeProgress(raw: unknown): Progress | null {
  if (typeof raw === "number" && Number.isFinite(raw) && raw >= 0) {
    if (raw <= 1) return fromFraction(raw);
    if (raw <= 100) return fromFraction(raw / 100);
    return null;
  }
  if (typeof raw === "string") {
    const text = raw.trim().slice(0, 40);
    if (text === "") return null;
    const match = PERCENT_TEXT.exec(text);
    const percent = match?.[1] === undefined ? Number.NaN : Number(match[1]);
    if (percent >= 0 && percent <= 100) return { fraction: percent / 100, label: text };
    // A bare number reads as the number would: "0.45" and "45" are both "45%".
    const number = NUMBER_TEXT.exec(text)?.[1];
    const read = number === undefined ? null : normalizeProgress(Number(number));
    return read ?? { fraction: null, label: text };
  }
  return null;
}

function fromFraction(fraction: number): Progress {
  return { fraction, label: `${Math.round(fraction * 100)}%` };
}

/** What the polls of one task saw of its progress, kept in the job record: a few numbers. */
export const progressTrailSchema = z.object({
  /** Where the guide's count of polls starts: the task's submission, as the polls tell it. */
  from: z.number(),
  /** The latest runs of polls that saw the same progress, oldest first (at most KEEP_RUNS). */
  runs: z.array(z.tuple([z.number(), z.number(), z.number().min(0).max(1)])),
  /** Progress went back or leapt: the guide's schedule for the rest of the task. */
  erratic: z.literal(true).optional(),
  /** Some wait was chosen by progress: the poll budget binds every wait from then on. */
  led: z.literal(true).optional(),
});
export type ProgressTrail = z.infer<typeof progressTrailSchema>;

/** Runs kept: enough for the line of `finish-estimate.ts` and a stall before it. */
export const KEEP_RUNS = 8;

/** A rise is a leap (erratic) past this share of the task… */
const LEAP_FLOOR = 0.25;
/** …and this many times what the task's pace made likely. */
const LEAP_FACTOR = 4;

/** The trail with `fraction` (null: nothing measurable) seen at `now`; `expected`: the pace's. */
export function recordReading(
  trail: ProgressTrail,
  now: number,
  fraction: number | null,
  expected: number | undefined,
): ProgressTrail {
  if (fraction === null || trail.erratic === true) return trail;
  const last = trail.runs.at(-1);
  // 1 (as a number) is also "1 %": a running task at 100 % is believed only near its end.
  if (fraction >= 1 && Math.max(last?.[2] ?? 0, expected ?? 0) < 0.9) return trail;
  if (last === undefined) return { ...trail, runs: [[now, now, fraction]] };
  const rise = fraction - last[2];
  if (Math.abs(rise) < 1e-9) {
    return { ...trail, runs: [...trail.runs.slice(0, -1), [last[0], now, last[2]]] };
  }
  const expectedRise = expected === undefined ? Number.POSITIVE_INFINITY : expected - last[2];
  const leap = rise > LEAP_FLOOR && rise > LEAP_FACTOR * Math.max(0, expectedRise);
  if (rise < 0 || leap) return { ...trail, erratic: true };
  const runs: Run[] = [...trail.runs, [now, now, fraction]];
  return { ...trail, runs: runs.slice(-KEEP_RUNS) };
}
