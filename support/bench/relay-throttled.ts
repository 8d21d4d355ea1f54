/**
 * Benchmark 6 (issue 15): a recording relayed over a network of limited bandwidth, as in
 * production, by the real app against curl; and the app's memory while it relays two.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream, readFileSync } from "node:fs";
import { mkdir, rm, truncate } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { SlackFileObject } from "../fake-slack/fake-slack-types.ts";
import { fileShareMessageEvent, sendEvent } from "../fake-slack/slack-request.ts";
import { recordingBytes } from "../fakes/recording-bytes.ts";
import { type AppProcess, spawnApp } from "../helpers/spawn-app.ts";
import { type EmulatorProcess, spawnEmulator } from "../helpers/spawn-emulator.ts";
import { stopChild } from "../helpers/stop-child.ts";
import { makeTempDir } from "../helpers/temp-files.ts";
import type { RunFacts } from "./report.ts";
import { startScriptOf } from "./start-script.ts";
import {
  benchAppEnv,
  benchFile,
  type FakeSlackProcess,
  MiB,
  median,
  round,
  runChild,
  sleep,
  spawnFakeSlack,
} from "./support.ts";

const CURL = "/usr/bin/curl";
/** The person and channel `fake-slack-child.ts` sets up. */
const USER = "U0BENCH01";
const CHANNEL = "C0BENCH01";

export const THROTTLED_RATIO_TARGET = 0.6;
export const THROTTLED_HWM_TARGET_MIB = 256;

export interface RelayThrottledOptions {
  sizeMiB: number;
  /** Bandwidth of each direction of each server's link, Mbit/s (10⁶ bit). */
  mbit: number;
  runs: number;
  /** The app's entry point (default this checkout's `src/main.ts`). */
  main: string | undefined;
}

export interface RelayThrottledResult {
  sizeMiB: number;
  mbit: number;
  runs: number;
  /** The app's entry point measured, as given (`src/main.ts` when none was). */
  main: string;
  /** Medians, ms. Bot: the event sent → the emulator has the whole upload. */
  botMs: number;
  /** curl: spawn to exit of the download, plus the same of the upload; and each half. */
  curlMs: number;
  curlDownloadMs: number;
  curlUploadMs: number;
  ratio: number;
  /** Every run, ms, in order. */
  botRunsMs: number[];
  curlRunsMs: number[];
  /** The recording's time on one link at its full rate: a relay cannot beat it. */
  linkMs: number;
  /** Largest `VmHWM` of the timed bots (one relay each), read before each stopped. */
  singleHwmMiB: number;
  /** A fresh bot relaying two recordings at once. */
  pair: {
    /** `VmRSS` and `VmHWM` after start-up, before any job. */
    idleRssMiB: number;
    idleHwmMiB: number;
    /** `VmHWM` once both uploads are complete, before the bot stopped. */
    hwmMiB: number;
    /** Both events sent → both uploads complete. */
    ms: number;
  };
}

/**
 * The fake Slack and the emulator each run in a process of their own behind a link of
 * `mbit` in each direction (`throttle-proxy.ts`, a process per link). Everything reaches
 * them through the links: curl, and the bot's Web API calls, downloads and uploads (the file
 * object in the event names the link's address, as the bot's `SLACK_API_URL` does). Per
 * run: the real app (`node src/main.ts` with the V8 flags of `npm start`, SQLite store,
 * fresh process) is sent a signed `file_share` message event for a sparse `.mp3` of
 * `sizeMiB` (a real MP3 head) and timed until the emulator has the whole upload; and curl
 * downloads it and then uploads it; taking turns. Then a fresh app relays two at once.
 */
export async function benchRelayThrottled(o: RelayThrottledOptions): Promise<RelayThrottledResult> {
  const bytesPerSecond = (o.mbit * 1e6) / 8;
  const size = o.sizeMiB * MiB;
  const temp = await makeTempDir("mn-bench-relay-throttled-");
  const source = await temp.file("recording.mp3", recordingBytes("recording.mp3", 8192));
  await truncate(source, size);
  const expected = { bytes: size, sha256: await sha256Of(source) };
  // A file per bot run and two for the pair: each share is a new recording to the bot.
  const fake = await spawnFakeSlack(
    Array.from({ length: o.runs + 2 }, (_, i) => ({ name: `meeting-${i + 1}.mp3`, path: source })),
  );
  // Tasks never finish: once submitted, a job only polls, so nothing else runs meanwhile.
  const emulator = await spawnEmulator({ EMULATOR_POLLS_TO_COMPLETE: "1000000000" });
  const slackLink = await spawnThrottle(Number(new URL(fake.origin).port), bytesPerSecond);
  const serviceLink = await spawnThrottle(Number(new URL(emulator.baseUrl).port), bytesPerSecond);
  const viaLink = (url: string, link: Throttle) => {
    const moved = new URL(url);
    moved.port = String(link.port);
    return moved.href.replace(/\/$/, "");
  };
  const slackOrigin = viaLink(fake.origin, slackLink);
  const serviceBase = viaLink(emulator.baseUrl, serviceLink);
  const main = o.main ?? benchFile("../../src/main.ts");
  // The variables and Node options of this checkout's `npm start`: the app as production runs it.
  const start = startScriptOf(benchFile("../.."));
  let nextFile = 0;
  /** A fresh app with a store (and so a temp folder for its downloads) of its own. */
  const startBot = async (name: string) => {
    const dir = join(temp.dir, name);
    await mkdir(dir);
    const env = benchAppEnv(
      { botToken: fake.botToken, apiUrl: `${slackOrigin}/api/` },
      { baseUrl: serviceBase, apiKey: emulator.apiKey },
      `sqlite://${dir}/app.sqlite`,
    );
    const app = await spawnApp({ ...env, ...start.env }, main, start.nodeArgs);
    // Start-up's own calls (auth.test…) are over before the clock starts.
    await sleep(1000);
    const share = async () => {
      const file = fake.files[nextFile++];
      if (file === undefined) throw new Error("fake Slack: no file left to share");
      await shareRecording(app, env.SLACK_SIGNING_SECRET ?? "", fake, file.id, slackOrigin);
    };
    const stop = async () => {
      await app.stop();
      await rm(dir, { recursive: true, force: true });
    };
    return { app, share, stop };
  };

  const bot: { ms: number; hwm: number }[] = [];
  const curl: { downMs: number; upMs: number }[] = [];
  try {
    for (let run = 0; run < o.runs; run++) {
      const runBot = async () => {
        const { app, share, stop } = await startBot(`bot-${run}`);
        try {
          const before = (await emulator.stats()).audioSubmissions.length;
          const started = performance.now();
          await share();
          await waitForUploads(emulator, app, before, 1, expected, bytesPerSecond);
          const ms = performance.now() - started;
          bot.push({ ms, hwm: procStatus(app).hwm });
          log(`bot run ${run + 1}: ${round(ms / 1000, 2)} s`);
        } finally {
          await stop();
        }
      };
      const runCurl = async () => {
        const file = fake.files[0];
        if (file === undefined) throw new Error("fake Slack lost a file");
        const path = join(temp.dir, `curl-${run}.mp3`);
        const down = await runChild(CURL, [
          "-sS",
          "--fail",
          "-H",
          `Authorization: Bearer ${fake.botToken}`,
          "-o",
          path,
          file.url.replace(fake.origin, slackOrigin),
        ]);
        const up = await runChild(CURL, [
          "-sS",
          "--fail-with-body",
          "-H",
          `X-API-Key: ${emulator.apiKey}`,
          "-F",
          `audio=@${path};filename=recording.mp3`,
          `${serviceBase}/audio2dialog`,
        ]);
        if (!up.stdout.includes("task_id")) throw new Error(`curl upload refused: ${up.stdout}`);
        await rm(path, { force: true });
        curl.push({ downMs: down.wallMs, upMs: up.wallMs });
        log(`curl run ${run + 1}: ${round((down.wallMs + up.wallMs) / 1000, 2)} s`);
      };
      // Alternate the order, so a busy moment or a warm page cache favours neither side.
      if (run % 2 === 0) {
        await runBot();
        await runCurl();
      } else {
        await runCurl();
        await runBot();
      }
    }

    const { app, share, stop } = await startBot("pair");
    let pair: RelayThrottledResult["pair"];
    try {
      const idle = procStatus(app);
      const before = (await emulator.stats()).audioSubmissions.length;
      const started = performance.now();
      await Promise.all([share(), share()]);
      await waitForUploads(emulator, app, before, 2, expected, bytesPerSecond);
      const ms = performance.now() - started;
      pair = {
        idleRssMiB: round(idle.rss / MiB),
        idleHwmMiB: round(idle.hwm / MiB),
        hwmMiB: round(procStatus(app).hwm / MiB),
        ms: round(ms, 0),
      };
      log(`pair: ${JSON.stringify(pair)}`);
    } finally {
      await stop();
    }

    const botMs = median(bot.map((b) => b.ms));
    const curlMs = median(curl.map((c) => c.downMs + c.upMs));
    return {
      sizeMiB: o.sizeMiB,
      mbit: o.mbit,
      runs: o.runs,
      main: o.main ?? "src/main.ts",
      botMs: round(botMs, 0),
      curlMs: round(curlMs, 0),
      curlDownloadMs: round(median(curl.map((c) => c.downMs)), 0),
      curlUploadMs: round(median(curl.map((c) => c.upMs)), 0),
      ratio: round(botMs / curlMs, 2),
      botRunsMs: bot.map((b) => round(b.ms, 0)),
      curlRunsMs: curl.map((c) => round(c.downMs + c.upMs, 0)),
      linkMs: round((size / bytesPerSecond) * 1000, 0),
      singleHwmMiB: round(Math.max(...bot.map((b) => b.hwm)) / MiB),
      pair,
    };
  } finally {
    await serviceLink.stop();
    await slackLink.stop();
    await emulator.stop();
    await fake.stop();
    await temp.cleanup();
  }
}

const log = (text: string) => process.stderr.write(`relay-throttled: ${text}\n`);

export interface Throttle {
  port: number;
  stop(): Promise<void>;
}

/** A `throttle-proxy.ts` process in front of 127.0.0.1:`targetPort`. */
export async function spawnThrottle(targetPort: number, bytesPerSecond: number): Promise<Throttle> {
  const child = spawn(
    process.execPath,
    [benchFile("./throttle-proxy.ts"), String(targetPort), String(bytesPerSecond)],
    { env: { PATH: process.env.PATH ?? "" }, stdio: ["ignore", "pipe", "inherit"] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout }).once("line", (line) =>
      resolve((JSON.parse(line) as { port: number }).port),
    );
    child.once("exit", (code) => reject(new Error(`throttle proxy exited with ${code}`)));
  });
  return { port, stop: () => stopChild(child) };
}

/**
 * Shares a file of the fake Slack with the bot as a person's upload would: a signed
 * `message` event of subtype `file_share` carrying the file object from `files.info`, its
 * links moved to the origin the bot reaches Slack at (the link in front of the fake).
 */
export async function shareRecording(
  app: AppProcess,
  signingSecret: string,
  fake: FakeSlackProcess,
  fileId: string,
  slackOrigin: string,
): Promise<void> {
  const answer = await fetch(`${fake.apiUrl}files.info`, {
    method: "POST",
    headers: { authorization: `Bearer ${fake.botToken}` },
    body: new URLSearchParams({ file: fileId }),
  });
  const info = (await answer.json()) as { ok: boolean; file?: SlackFileObject; error?: string };
  if (!info.ok || info.file === undefined) throw new Error(`files.info: ${info.error}`);
  const file = JSON.parse(
    JSON.stringify(info.file).replaceAll(fake.origin, slackOrigin),
  ) as SlackFileObject;
  const event = fileShareMessageEvent(file, { channel: CHANNEL, user: USER });
  const sent = await sendEvent(app.url, signingSecret, event, {
    teamId: fake.teamId,
    botUserId: fake.botUserId,
  });
  if (sent.status !== 200) throw new Error(`the bot answered the event with ${sent.status}`);
}

/**
 * Waits until the emulator has `count` more uploads than `before`, each the whole recording
 * (its size and hash: a fast relay of the wrong bytes must not count); gives up, with the
 * app's last log lines, well after the link could have carried them.
 */
export async function waitForUploads(
  emulator: EmulatorProcess,
  app: AppProcess,
  before: number,
  count: number,
  expected: { bytes: number; sha256: string },
  bytesPerSecond: number,
): Promise<void> {
  const deadline =
    performance.now() + 60_000 + ((4 * count * expected.bytes) / bytesPerSecond) * 1000;
  for (;;) {
    const fresh = (await emulator.stats()).audioSubmissions.slice(before);
    const whole = fresh.filter((s) => s.bytes === expected.bytes && s.sha256 === expected.sha256);
    if (whole.length >= count) return;
    if (performance.now() > deadline || app.child.exitCode !== null) {
      throw new Error(
        `the emulator got ${whole.length} of ${count} whole upload(s) (${fresh.length} in all):\n${app.lines.slice(-15).join("\n")}`,
      );
    }
    await sleep(100);
  }
}

/** The SHA-256 of a file, hex (as the emulator records each upload's). */
export async function sha256Of(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** `VmRSS` and `VmHWM` (the kernel's high-water mark of RSS) of the app, bytes. */
export function procStatus(app: AppProcess): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${app.child.pid}/status`, "utf8");
  const kib = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1]);
  return { rss: kib("VmRSS") * 1024, hwm: kib("VmHWM") * 1024 };
}

const s = (ms: number) => (ms / 1000).toFixed(1);
const verdict = (ok: boolean) => (ok ? "met" : "**missed**");

export function renderRelayThrottled(r: RelayThrottledResult, at: RunFacts): string {
  return [
    `## 6. Relay over a ${r.mbit} Mbit/s link (issue 15)`,
    "",
    `Measured ${at.date} UTC, load average ${at.load.toFixed(1)} at the start.`,
    "",
    "The fake Slack and the Note Service emulator each run in a process of their own behind",
    `a link of ${r.mbit} Mbit/s in each direction (\`throttle-proxy.ts\`: one process per link,`,
    "shared by all its connections, backpressure to the sender, no added latency), which",
    "everything goes through: curl, and the bot's Web API calls, download and upload. The",
    "bot is the real app (`node src/main.ts` with the V8 flags of `npm start`, HTTP mode,",
    "SQLite store, a fresh process per run), sent a signed `file_share` message event for a",
    `sparse ${r.sizeMiB} MiB \`.mp3\` (a real MP3 head) and timed from the event to the`,
    "emulator holding the whole upload; curl downloads the file (`curl -o`), then uploads",
    `it (\`curl -F audio=@…\`), spawn to exit of each. ${r.runs} run(s) each, taking turns; medians.`,
    `The link carries the recording once in ${s(r.linkMs)} s: downloading, then uploading`,
    "takes at least twice that; relaying while downloading, little more than once.",
    ...(r.main === "src/main.ts" ? [] : [`The app measured: \`${r.main}\` (\`BENCH_APP_MAIN\`).`]),
    "",
    `| size (MiB) | link | bot: event → uploaded (s) | curl: download + upload (s) | ratio | target ≤ ${THROTTLED_RATIO_TARGET}× curl |`,
    "|---:|---:|---:|---:|---:|---|",
    `| ${r.sizeMiB} | ${r.mbit} Mbit/s | ${s(r.botMs)} | ${s(r.curlMs)} (${s(r.curlDownloadMs)} + ${s(r.curlUploadMs)}) | **${r.ratio.toFixed(2)}×** | ${verdict(r.ratio <= THROTTLED_RATIO_TARGET)} |`,
    "",
    "The app's memory (`/proc/PID/status`): after start-up, before any job; and its",
    "high-water mark `VmHWM` read just before it stopped, relaying one recording (the timed",
    "runs, largest) and two at once (a fresh process, both events sent together).",
    "",
    `| idle VmRSS (MiB) | idle VmHWM (MiB) | VmHWM, one relay (MiB) | VmHWM, two at once (MiB) | two at once: events → both uploaded (s) | target VmHWM ≤ ${THROTTLED_HWM_TARGET_MIB} MiB |`,
    "|---:|---:|---:|---:|---:|---|",
    `| ${r.pair.idleRssMiB} | ${r.pair.idleHwmMiB} | ${r.singleHwmMiB} | **${r.pair.hwmMiB}** | ${s(r.pair.ms)} | ${verdict(r.pair.hwmMiB <= THROTTLED_HWM_TARGET_MIB)} |`,
  ].join("\n");
}
