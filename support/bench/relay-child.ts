/**
 * The bot's own relay path in a process of its own, so its memory is its own: downloads a
 * Slack file with `downloadSlackFile`, then uploads it with `NoteTakerClient.submitAudio`.
 * Prints `{ taskId, bytes, downloadMs, uploadMs, baselineRss, peakRss, downloadPeakRss,
 * uploadPeakRss, cpuMs, pauseMs }` as one JSON line (RSS in bytes; the phase peaks are sampled).
 * Usage: node --expose-gc support/bench/relay-child.ts URL TOKEN DEST BYTES BASE_URL API_KEY
 */
import { rm } from "node:fs/promises";
import { NoteTakerClient } from "../../src/notetaker/index.ts";
import { MAX_AUDIO_BYTES } from "../../src/recordings/index.ts";
import { downloadSlackFile, slackHostsOf } from "../../src/slack/gateway/download-slack-file.ts";

const [url, token, destPath, bytes, baseUrl, apiKey] = process.argv.slice(2);
if (!url || !token || !destPath || !bytes || !baseUrl || !apiKey) {
  process.stderr.write("usage: relay-child.ts URL TOKEN DEST BYTES BASE_URL API_KEY\n");
  process.exit(2);
}

const client = new NoteTakerClient({ baseUrl, apiKey, uploadTimeoutMs: 300_000 });
// Let start-up allocations settle before taking the baseline (the parent takes this pause
// off the process's wall time: the bot does not make it).
const pausedAt = performance.now();
globalThis.gc?.();
await new Promise((resolve) => setTimeout(resolve, 100));
const pauseMs = performance.now() - pausedAt;
const baselineRss = process.memoryUsage.rss();
let phasePeak = baselineRss;
const sampler = setInterval(() => {
  phasePeak = Math.max(phasePeak, process.memoryUsage.rss());
}, 5);

const cpuBefore = process.cpuUsage();
const started = performance.now();
const got = await downloadSlackFile({
  url,
  token,
  // The fake Slack is the only host here: the token goes to it alone.
  hosts: slackHostsOf(url),
  destPath,
  maxBytes: MAX_AUDIO_BYTES,
  expectedBytes: Number(bytes),
  timeoutMs: 300_000,
});
const downloaded = performance.now();
const downloadPeakRss = Math.max(phasePeak, process.memoryUsage.rss());
phasePeak = 0;
const taskId = await client.submitAudio({ path: destPath, filename: "recording.mp3" });
const uploaded = performance.now();
const cpu = process.cpuUsage(cpuBefore);
clearInterval(sampler);
const uploadPeakRss = Math.max(phasePeak, process.memoryUsage.rss());
// maxRSS (KiB) is the kernel's high-water mark: it catches a peak between two samples.
const peakRss = Math.max(downloadPeakRss, uploadPeakRss, process.resourceUsage().maxRSS * 1024);
await rm(destPath, { force: true });
process.stdout.write(
  `${JSON.stringify({
    taskId,
    bytes: got,
    downloadMs: downloaded - started,
    uploadMs: uploaded - downloaded,
    baselineRss,
    peakRss,
    downloadPeakRss,
    uploadPeakRss,
    cpuMs: (cpu.user + cpu.system) / 1000,
    pauseMs,
  })}\n`,
);
