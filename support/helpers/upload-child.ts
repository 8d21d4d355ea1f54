/**
 * Runs in its own process so its memory can be measured alone: uploads one recording through
 * the real client and prints `{ taskId, baselineRss, peakRss }` (bytes) as one JSON line.
 * Usage: node support/helpers/upload-child.ts BASE_URL API_KEY PATH FILENAME
 */
import { NoteTakerClient } from "../../src/notetaker/index.ts";

const [baseUrl, apiKey, path, filename] = process.argv.slice(2);
if (!baseUrl || !apiKey || !path || !filename) {
  process.stderr.write("usage: upload-child.ts BASE_URL API_KEY PATH FILENAME\n");
  process.exit(2);
}

const client = new NoteTakerClient({ baseUrl, apiKey, uploadTimeoutMs: 120_000 });
// Let start-up allocations settle before taking the baseline.
globalThis.gc?.();
await new Promise((resolve) => setTimeout(resolve, 100));
const baselineRss = process.memoryUsage.rss();
let peakRss = baselineRss;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
}, 5);
const taskId = await client.submitAudio({ path, filename });
clearInterval(sampler);
// maxRSS (KiB) is the kernel's high-water mark: it catches a peak between two samples.
peakRss = Math.max(peakRss, process.resourceUsage().maxRSS * 1024);
process.stdout.write(`${JSON.stringify({ taskId, baselineRss, peakRss })}\n`);
