import { rm } from "node:fs/promises";
import { join } from "node:path";
import { spawnEmulator } from "../helpers/spawn-emulator.ts";
import { makeTempDir } from "../helpers/temp-files.ts";
import { benchFile, lastJson, MiB, median, round, runChild, spawnFakeSlack } from "./support.ts";

const CURL = "/usr/bin/curl";

export interface RelayResult {
  sizeMiB: number;
  runs: number;
  /** Medians, ms: whole child processes, spawn to exit (the bot child's 100 ms pause off). */
  botWallMs: number;
  curlWallMs: number;
  /** Medians, ms: the transfers alone (bot: timed inside the child; curl: `time_total`). */
  botTransferMs: number;
  curlTransferMs: number;
  /** The two halves, medians, ms. */
  botDownloadMs: number;
  botUploadMs: number;
  curlDownloadMs: number;
  curlUploadMs: number;
  /** Spawn to exit minus the transfer in the bot child (Node start-up, imports, clean-up). */
  botStartupMs: number;
  /** CPU time of the bot child during the transfer, median. */
  botCpuMs: number;
  wallRatio: number;
  transferRatio: number;
  /** The bot process's peak RSS over its baseline (after start-up and GC): max and median. */
  rssGrowthMaxMiB: number;
  rssGrowthMedianMiB: number;
  /** Sampled peaks over the baseline during each half: max over the runs. */
  downloadGrowthMiB: number;
  uploadGrowthMiB: number;
  botMiBps: number;
  curlMiBps: number;
}

interface ChildReport {
  taskId: string;
  bytes: number;
  downloadMs: number;
  uploadMs: number;
  baselineRss: number;
  peakRss: number;
  downloadPeakRss: number;
  uploadPeakRss: number;
  cpuMs: number;
  pauseMs: number;
}

/**
 * Benchmark 1. A sparse recording per size is served by the fake Slack (own process); the
 * bot's path (`downloadSlackFile` then `NoteTakerClient.submitAudio`, in a child process)
 * and curl (download, then the same multipart upload) relay it into the emulator (own
 * process), alternating which goes first, `runs` times per size.
 */
export async function benchRelay(sizesMiB: number[], runs = 3): Promise<RelayResult[]> {
  const temp = await makeTempDir("mn-bench-relay-");
  const sources = await Promise.all(
    sizesMiB.map(async (mb) => ({
      mb,
      name: `recording-${mb}.mp3`,
      path: await temp.sparse(`source-${mb}.mp3`, mb * MiB),
    })),
  );
  const fake = await spawnFakeSlack(sources.map(({ name, path }) => ({ name, path })));
  const emulator = await spawnEmulator();
  const results: RelayResult[] = [];
  try {
    for (const [index, source] of sources.entries()) {
      const file = fake.files[index];
      if (file === undefined) throw new Error("fake Slack lost a file");
      const bot: { wallMs: number; report: ChildReport }[] = [];
      const curl: { wallMs: number; downMs: number; upMs: number }[] = [];
      for (let run = 0; run < runs; run++) {
        const dest = join(temp.dir, `download-${source.mb}-${run}.mp3`);
        const runBot = async () => {
          const child = await runChild(process.execPath, [
            "--expose-gc",
            benchFile("./relay-child.ts"),
            file.url,
            fake.botToken,
            `${dest}.bot`,
            String(file.size),
            emulator.baseUrl,
            emulator.apiKey,
          ]);
          const report = lastJson<ChildReport>(child.stdout);
          if (report.bytes !== file.size) throw new Error(`bot relayed ${report.bytes} bytes`);
          bot.push({ wallMs: child.wallMs - report.pauseMs, report });
        };
        const runCurl = async () => {
          const path = `${dest}.curl`;
          const down = await runChild(CURL, [
            "-sS",
            "--fail",
            "-w",
            "%{time_total}",
            "-H",
            `Authorization: Bearer ${fake.botToken}`,
            "-o",
            path,
            file.url,
          ]);
          const up = await runChild(CURL, [
            "-sS",
            "--fail-with-body",
            "-w",
            "\n%{time_total}",
            "-H",
            `X-API-Key: ${emulator.apiKey}`,
            "-F",
            `audio=@${path};filename=recording.mp3`,
            `${emulator.baseUrl}/audio2dialog`,
          ]);
          await rm(path, { force: true });
          const [body = "", upTotal = "0"] = up.stdout.trim().split("\n");
          if (!body.includes("task_id")) throw new Error(`curl upload refused: ${body}`);
          curl.push({
            wallMs: down.wallMs + up.wallMs,
            downMs: Number(down.stdout.trim()) * 1000,
            upMs: Number(upTotal) * 1000,
          });
        };
        // Alternate the order, so a warm page cache or a busy moment favours neither side.
        if (run % 2 === 0) {
          await runBot();
          await runCurl();
        } else {
          await runCurl();
          await runBot();
        }
      }
      const growth = bot.map((b) => (b.report.peakRss - b.report.baselineRss) / MiB);
      const botWallMs = median(bot.map((b) => b.wallMs));
      const botTransferMs = median(bot.map((b) => b.report.downloadMs + b.report.uploadMs));
      const curlWallMs = median(curl.map((c) => c.wallMs));
      const curlTransferMs = median(curl.map((c) => c.downMs + c.upMs));
      const growthOf = (pick: (r: ChildReport) => number) =>
        round(Math.max(...bot.map((b) => (pick(b.report) - b.report.baselineRss) / MiB)));
      results.push({
        sizeMiB: source.mb,
        runs,
        botWallMs: round(botWallMs, 0),
        curlWallMs: round(curlWallMs, 0),
        botTransferMs: round(botTransferMs, 0),
        curlTransferMs: round(curlTransferMs, 0),
        botDownloadMs: round(median(bot.map((b) => b.report.downloadMs)), 0),
        botUploadMs: round(median(bot.map((b) => b.report.uploadMs)), 0),
        curlDownloadMs: round(median(curl.map((c) => c.downMs)), 0),
        curlUploadMs: round(median(curl.map((c) => c.upMs)), 0),
        botCpuMs: round(median(bot.map((b) => b.report.cpuMs)), 0),
        botStartupMs: round(
          median(bot.map((b) => b.wallMs - b.report.downloadMs - b.report.uploadMs)),
          0,
        ),
        wallRatio: round(botWallMs / curlWallMs, 2),
        transferRatio: round(botTransferMs / curlTransferMs, 2),
        rssGrowthMaxMiB: round(Math.max(...growth)),
        rssGrowthMedianMiB: round(median(growth)),
        downloadGrowthMiB: growthOf((r) => r.downloadPeakRss),
        uploadGrowthMiB: growthOf((r) => r.uploadPeakRss),
        // Each side moves the recording twice (down, then up).
        botMiBps: round((2 * source.mb) / (botTransferMs / 1000), 0),
        curlMiBps: round((2 * source.mb) / (curlTransferMs / 1000), 0),
      });
      process.stderr.write(`relay: ${source.mb} MiB ${JSON.stringify(results.at(-1))}\n`);
    }
    return results;
  } finally {
    await emulator.stop();
    await fake.stop();
    await temp.cleanup();
  }
}
