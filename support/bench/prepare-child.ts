/**
 * The bot's own preparation of a recording in a process of its own, so its memory is its
 * own: `findMediaTools`, `probeMedia`, then `extractSpeech` (src/media), as the job layer's
 * preparer runs them. Prints one JSON line, a {@link PrepareReport}.
 * Usage: node --expose-gc support/bench/prepare-child.ts INPUT OUTPUT
 */
import { readFileSync, writeFileSync } from "node:fs";
import { open, stat } from "node:fs/promises";
import { extractSpeech, probeMedia } from "../../src/media/ffmpeg.ts";
import { findMediaTools } from "../../src/media/tools.ts";
import { demuxerOf, MAX_AUDIO_BYTES, sniffRecording } from "../../src/recordings/index.ts";

export interface PrepareReport {
  /** `ffmpeg -version`'s first line, as the bot found it. */
  ffmpeg: string;
  probeMs: number;
  extractMs: number;
  /** CPU time of this process over the probe and the extraction. */
  botCpuMs: number;
  /** CPU time of the children (from `/proc/self/stat` once they were reaped). */
  probeCpuMs: number;
  ffmpegCpuMs: number;
  /** This process: RSS after start-up and a GC; `VmHWM` then; the peak from then on. */
  baselineRss: number;
  startupHwm: number;
  peakRss: number;
  /** FFmpeg: its last `VmHWM` and the largest `VmRSS` of its 50 ms samples. */
  ffmpegHwm: number;
  /** FFmpeg's largest `VmPeak` (address space mapped): what its memory limit must leave room for. */
  ffmpegVmPeak: number;
  /** The address-space limit FFmpeg ran under (bytes), as `findMediaTools` set it up. */
  addressSpace: number | undefined;
  ffmpegPeakRss: number;
  ffmpegSamples: number;
  inBytes: number;
  outBytes: number;
  /** What the probe said of the input. */
  inDurationSec: number | undefined;
  /** Progress callbacks, and the last fraction reported. */
  progressCalls: number;
  lastFraction: number | undefined;
}

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  process.stderr.write("usage: prepare-child.ts INPUT OUTPUT\n");
  process.exit(2);
}

/** A `kB` field of `/proc/PID/status`, in bytes (NaN once the process is gone). */
function statusBytes(pid: number | "self", field: string): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1]) * 1024;
  } catch {
    return Number.NaN;
  }
}

/** CPU time of this process's reaped children so far, ms (`cutime` + `cstime`, 10 ms ticks). */
function childrenCpuMs(): number {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Fields 16 and 17 of the file are 13 and 14 after the name.
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

const tools = await findMediaTools({});
if (tools === undefined) throw new Error("FFmpeg or ffprobe not found");

// Let start-up allocations settle before taking the baseline; then the kernel's high-water
// mark starts again from here (writing 5 to clear_refs), so VmHWM is the preparation's peak.
globalThis.gc?.();
await new Promise((resolve) => setTimeout(resolve, 100));
const baselineRss = statusBytes("self", "VmRSS");
const startupHwm = statusBytes("self", "VmHWM");
writeFileSync("/proc/self/clear_refs", "5");

const ffmpeg = { pid: 0, hwm: 0, peakRss: 0, vmPeak: 0, samples: 0 };
const sampler = setInterval(() => {
  if (ffmpeg.pid === 0) return;
  const hwm = statusBytes(ffmpeg.pid, "VmHWM");
  const rss = statusBytes(ffmpeg.pid, "VmRSS");
  if (Number.isNaN(hwm)) return;
  ffmpeg.hwm = Math.max(ffmpeg.hwm, hwm);
  ffmpeg.peakRss = Math.max(ffmpeg.peakRss, rss);
  ffmpeg.vmPeak = Math.max(ffmpeg.vmPeak, statusBytes(ffmpeg.pid, "VmPeak") || 0);
  ffmpeg.samples++;
}, 50);

let progressCalls = 0;
let lastFraction: number | undefined;
const cpuBefore = process.cpuUsage();
const childBefore = childrenCpuMs();
const started = performance.now();
// The file's head, read as the job layer does (without loading the job layer: its imports
// would count in this process's baseline).
const file = await open(input, "r");
const sniffed = await sniffRecording(async (at, length) => {
  const { buffer, bytesRead } = await file.read(Buffer.alloc(length), 0, length, at);
  return buffer.subarray(0, bytesRead);
});
await file.close();
const demuxer = demuxerOf(sniffed);
if (demuxer === undefined) throw new Error(`${input} is not a recording the bot takes`);
const info = await probeMedia(tools, { path: input, demuxer });
const probed = performance.now();
const childProbed = childrenCpuMs();
await extractSpeech(tools, {
  input,
  demuxer,
  output,
  maxSeconds: 8 * 3600,
  maxBytes: MAX_AUDIO_BYTES + 1,
  durationSec: info.durationSec,
  timeoutMs: 30 * 60_000,
  onStart: (pid) => {
    ffmpeg.pid = pid;
  },
  onProgress: (fraction) => {
    progressCalls++;
    lastFraction = fraction;
  },
});
const extracted = performance.now();
const cpu = process.cpuUsage(cpuBefore);
clearInterval(sampler);

const report: PrepareReport = {
  ffmpeg: tools.version,
  probeMs: probed - started,
  extractMs: extracted - probed,
  botCpuMs: (cpu.user + cpu.system) / 1000,
  probeCpuMs: childProbed - childBefore,
  ffmpegCpuMs: childrenCpuMs() - childProbed,
  baselineRss,
  startupHwm,
  peakRss: statusBytes("self", "VmHWM"),
  ffmpegHwm: ffmpeg.hwm,
  ffmpegPeakRss: ffmpeg.peakRss,
  ffmpegVmPeak: ffmpeg.vmPeak,
  addressSpace: tools.addressSpace?.bytes,
  ffmpegSamples: ffmpeg.samples,
  inBytes: (await stat(input)).size,
  outBytes: (await stat(output)).size,
  inDurationSec: info.durationSec,
  progressCalls,
  lastFraction,
};
process.stdout.write(`${JSON.stringify(report)}\n`);
