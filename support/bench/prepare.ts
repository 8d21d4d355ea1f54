/**
 * Benchmark 7 (issue 15): the bot's preparation of a long video recording — its speech
 * extracted by FFmpeg into the small Ogg Opus the Note Service gets.
 */
import { join } from "node:path";
import { makeTempDir } from "../helpers/temp-files.ts";
import { durationOf, testVideo } from "./make-test-video.ts";
import type { PrepareReport } from "./prepare-child.ts";
import type { RunFacts } from "./report.ts";
import { benchFile, lastJson, MiB, median, round, runChild } from "./support.ts";

export const PREPARE_WALL_TARGET_S = 60;
export const PREPARE_RSS_TARGET_MIB = 64;

export interface PrepareResult {
  runs: number;
  ffmpeg: string;
  input: {
    minutes: number;
    sizeMiB: number;
    durationSec: number;
    /** Making it (once: it is kept), and whether an earlier run made it. */
    madeSeconds: number;
    cached: boolean;
  };
  /** Medians, s: probe + extraction; the probe alone. */
  wallSeconds: number;
  probeSeconds: number;
  /** Medians, CPU-s: the bot's process, ffprobe, FFmpeg. */
  botCpuSeconds: number;
  probeCpuSeconds: number;
  ffmpegCpuSeconds: number;
  /** The bot's process: its peak RSS over its baseline after start-up and a GC (max of runs). */
  botGrowthMiB: number;
  botBaselineMiB: number;
  /** FFmpeg's VmHWM, and its VmPeak (address space, which its RLIMIT_AS bounds): max of runs. */
  ffmpegHwmMiB: number;
  ffmpegVmPeakMiB: number;
  /** The address-space limit FFmpeg ran under (MiB), or undefined without prlimit. */
  addressSpaceMiB: number | undefined;
  outSizeMiB: number;
  outDurationSec: number;
  /** The progress the bot saw (median calls per run; the last fraction of the last run). */
  progressCalls: number;
  lastFraction: number | undefined;
}

/**
 * The test video of `minutes` (made once and cached, `make-test-video.ts`) is prepared by
 * the bot's own code in a child process (`prepare-child.ts`), `runs` times; medians of the
 * times, the largest memory figures.
 */
export async function benchPrepare(minutes = 60, runs = 3): Promise<PrepareResult> {
  process.stderr.write(`prepare: the ${minutes}-minute test video…\n`);
  const video = await testVideo(minutes);
  process.stderr.write(`prepare: ${JSON.stringify(video)}\n`);
  const temp = await makeTempDir("mn-bench-prepare-");
  try {
    const reports: PrepareReport[] = [];
    let outDurationSec = Number.NaN;
    for (let run = 0; run < runs; run++) {
      const output = join(temp.dir, `speech-${run}.ogg`);
      const child = await runChild(process.execPath, [
        "--expose-gc",
        benchFile("./prepare-child.ts"),
        video.path,
        output,
      ]);
      const report = lastJson<PrepareReport>(child.stdout);
      reports.push(report);
      outDurationSec = await durationOf(output);
      process.stderr.write(`prepare: run ${run + 1}: ${JSON.stringify(report)}\n`);
    }
    const med = (pick: (r: PrepareReport) => number, digits = 1) =>
      round(median(reports.map(pick)), digits);
    const max = (pick: (r: PrepareReport) => number) => round(Math.max(...reports.map(pick)));
    return {
      runs,
      ffmpeg: reports[0]?.ffmpeg ?? "?",
      input: {
        minutes,
        sizeMiB: round(video.bytes / MiB),
        durationSec: video.durationSec,
        madeSeconds: round(video.madeMs / 1000, 0),
        cached: video.cached,
      },
      wallSeconds: med((r) => (r.probeMs + r.extractMs) / 1000),
      probeSeconds: med((r) => r.probeMs / 1000, 2),
      botCpuSeconds: med((r) => r.botCpuMs / 1000, 2),
      probeCpuSeconds: med((r) => r.probeCpuMs / 1000, 2),
      ffmpegCpuSeconds: med((r) => r.ffmpegCpuMs / 1000),
      botGrowthMiB: max((r) => (r.peakRss - r.baselineRss) / MiB),
      botBaselineMiB: med((r) => r.baselineRss / MiB),
      ffmpegHwmMiB: max((r) => r.ffmpegHwm / MiB),
      ffmpegVmPeakMiB: max((r) => r.ffmpegVmPeak / MiB),
      addressSpaceMiB:
        reports[0]?.addressSpace === undefined ? undefined : round(reports[0].addressSpace / MiB),
      outSizeMiB: med((r) => r.outBytes / MiB),
      outDurationSec: round(outDurationSec),
      progressCalls: med((r) => r.progressCalls, 0),
      lastFraction: reports.at(-1)?.lastFraction,
    };
  } finally {
    await temp.cleanup();
  }
}

const verdict = (ok: boolean) => (ok ? "met" : "**missed**");

export function renderPrepare(r: PrepareResult, at: RunFacts): string {
  const made = `made in ${r.input.madeSeconds} s by ${r.input.cached ? "an earlier run, and kept" : "this run"}`;
  return [
    "## 7. Preparing an hour of 720p video (issue 15)",
    "",
    `Measured ${at.date} UTC, load average ${at.load.toFixed(1)} at the start, ${r.ffmpeg.split(" Copyright")[0]}.`,
    "",
    `The recording: ${r.input.durationSec} s of 1280×720 25 fps H.264 (FFmpeg's \`testsrc2\`, a minute`,
    "encoded once and looped) with speech-like 48 kHz stereo AAC (pink noise in the 300–3400 Hz",
    "band gated into syllables at ~4/s, pulsed at a voice's pitch, pauses between phrases) in",
    `a \`.mov\` of ${r.input.sizeMiB} MiB (\`support/bench/make-test-video.ts\`; ${made}). The bot's own code`,
    "(`findMediaTools`, `probeMedia`, `extractSpeech` of `src/media`) prepares it in a child",
    `process (\`support/bench/prepare-child.ts\`), ${r.runs} run(s); medians, and the largest memory figures.`,
    "The bot's memory is its process's `VmHWM` over its RSS after start-up and a GC (the",
    "high-water mark is reset there through `/proc/self/clear_refs`); FFmpeg's, its `VmHWM`",
    "sampled every 50 ms, and its `VmPeak` (the address space its `prlimit --as` limit bounds).",
    "CPU time of FFmpeg and ffprobe is their own (`cutime` once reaped).",
    "",
    `| wall: probe + extraction (s) | of which probe (s) | FFmpeg CPU (s) | ffprobe CPU (s) | bot CPU (s) | out: Ogg Opus (MiB) | out duration (s) | target ≤ ${PREPARE_WALL_TARGET_S} s |`,
    "|---:|---:|---:|---:|---:|---:|---:|---|",
    `| **${r.wallSeconds}** | ${r.probeSeconds} | ${r.ffmpegCpuSeconds} | ${r.probeCpuSeconds} | ${r.botCpuSeconds} | ${r.outSizeMiB} | ${r.outDurationSec} | ${verdict(r.wallSeconds <= PREPARE_WALL_TARGET_S)} |`,
    "",
    `| bot RSS after start-up (MiB) | bot RSS growth (MiB) | FFmpeg VmHWM (MiB) | FFmpeg VmPeak (MiB) / its limit | progress reports per run (last fraction) | target growth ≤ ${PREPARE_RSS_TARGET_MIB} MiB |`,
    "|---:|---:|---:|---:|---:|---|",
    `| ${r.botBaselineMiB} | **${r.botGrowthMiB}** | ${r.ffmpegHwmMiB} | ${r.ffmpegVmPeakMiB} / ${r.addressSpaceMiB ?? "none"} | ${r.progressCalls} (${r.lastFraction ?? "none"}) | ${verdict(r.botGrowthMiB <= PREPARE_RSS_TARGET_MIB)} |`,
  ].join("\n");
}
