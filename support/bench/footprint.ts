/**
 * Issue 27: the footprint of the real app, this checkout's and a baseline's, taking turns.
 * Each is started as its `npm start` runs it: the environment variables and Node options of
 * its start script (V8 flags as arguments of `node`; this checkout's sets NODE_COMPILE_CACHE,
 * its cache filled first by one start, as the first start on a machine or the image's build
 * does), HTTP mode, a SQLite store of its own, against the fake Slack and the emulator in
 * processes of their own, each behind a link of `mbit` (`relay-throttled.ts`'s). Per start:
 * the idle VmRSS/VmHWM, then one relay of a sparse recording of `relayMiB` (a signed
 * `file_share` event; timed until the emulator has the whole upload) and the VmHWM after it.
 */
import { existsSync } from "node:fs";
import { mkdir, truncate } from "node:fs/promises";
import { join } from "node:path";
import { recordingBytes } from "../fakes/recording-bytes.ts";
import { spawnApp } from "../helpers/spawn-app.ts";
import { spawnEmulator } from "../helpers/spawn-emulator.ts";
import { makeTempDir } from "../helpers/temp-files.ts";
import {
  procStatus,
  sha256Of,
  shareRecording,
  spawnThrottle,
  type Throttle,
  waitForUploads,
} from "./relay-throttled.ts";
import type { RunFacts } from "./report.ts";
import { type StartScript, startScriptOf } from "./start-script.ts";
import { benchAppEnv, benchFile, MiB, median, round, sleep, spawnFakeSlack } from "./support.ts";

export const IDLE_TARGET_MIB = 110;
export const RELAY_HWM_TARGET_MIB = 200;

export interface FootprintSide {
  root: string;
  /** What the start script sets: environment (relative paths resolved) and Node options. */
  start: StartScript;
  idleRssMiB: number[];
  idleHwmMiB: number[];
  /** VmHWM once the one relay is complete, before the app stopped. */
  relayHwmMiB: number[];
  /** The event sent → the emulator has the whole upload, s. */
  relaySeconds: number[];
}

export interface FootprintResult {
  runs: number;
  settleMs: number;
  relayMiB: number;
  /** Each direction of each server's link, Mbit/s; 0: no link, loopback. */
  mbit: number;
  sides: { baseline: FootprintSide; current: FootprintSide };
}

/** The `npm start` of a checkout, its compile cache moved to a folder of the benchmark's. */
export function startScript(root: string, cacheDir: string): StartScript {
  const start = startScriptOf(root);
  const env = { ...start.env };
  if (env.NODE_COMPILE_CACHE !== undefined) env.NODE_COMPILE_CACHE = cacheDir;
  return { env, nodeArgs: start.nodeArgs };
}

export async function benchFootprint(o: {
  baseline: string;
  runs: number;
  settleMs: number;
  relayMiB: number;
  mbit: number;
}): Promise<FootprintResult> {
  const temp = await makeTempDir("mn-bench-footprint-");
  const size = o.relayMiB * MiB;
  const source = await temp.file("recording.mp3", recordingBytes("recording.mp3", 8192));
  await truncate(source, size);
  const expected = { bytes: size, sha256: await sha256Of(source) };
  // A file per relay: each share is a new recording to the bot.
  const fake = await spawnFakeSlack(
    Array.from({ length: 2 * o.runs }, (_, i) => ({ name: `meeting-${i + 1}.mp3`, path: source })),
  );
  // Tasks never finish: once submitted, a job only polls, so nothing else runs meanwhile.
  const emulator = await spawnEmulator({ EMULATOR_POLLS_TO_COMPLETE: "1000000000" });
  // Without a link, loopback: the wait for the upload gives up as if at 50 MiB/s.
  const bytesPerSecond = o.mbit > 0 ? (o.mbit * 1e6) / 8 : 50 * MiB;
  const links: Throttle[] = [];
  const viaLink = async (url: string) => {
    if (o.mbit <= 0) return url.replace(/\/$/, "");
    const link = await spawnThrottle(Number(new URL(url).port), bytesPerSecond);
    links.push(link);
    const moved = new URL(url);
    moved.port = String(link.port);
    return moved.href.replace(/\/$/, "");
  };
  const current = benchFile("../..");
  const side = (root: string, name: string): FootprintSide => ({
    root,
    start: startScript(root, join(temp.dir, `${name}-compile-cache`)),
    idleRssMiB: [],
    idleHwmMiB: [],
    relayHwmMiB: [],
    relaySeconds: [],
  });
  const sides = { baseline: side(o.baseline, "baseline"), current: side(current, "current") };
  let n = 0;
  let nextFile = 0;
  try {
    const slackOrigin = await viaLink(fake.origin);
    const serviceBase = await viaLink(emulator.baseUrl);
    const startOnce = async (s: FootprintSide, relay: boolean) => {
      const dir = join(temp.dir, `app-${n++}`);
      await mkdir(dir);
      const env = benchAppEnv(
        { botToken: fake.botToken, apiUrl: `${slackOrigin}/api/` },
        { baseUrl: serviceBase, apiKey: emulator.apiKey },
        `sqlite://${dir}/app.sqlite`,
      );
      const app = await spawnApp(
        { ...env, ...s.start.env },
        join(s.root, "src/main.ts"),
        s.start.nodeArgs,
      );
      try {
        await sleep(o.settleMs);
        const idle = procStatus(app);
        if (!relay) return { idle };
        const file = fake.files[nextFile++];
        if (file === undefined) throw new Error("fake Slack: no file left to share");
        const before = (await emulator.stats()).audioSubmissions.length;
        const started = performance.now();
        await shareRecording(app, env.SLACK_SIGNING_SECRET ?? "", fake, file.id, slackOrigin);
        await waitForUploads(emulator, app, before, 1, expected, bytesPerSecond);
        const seconds = (performance.now() - started) / 1000;
        // Read just before the app stops: the high-water mark of its whole life.
        return { idle, relayHwm: procStatus(app).hwm, seconds };
      } finally {
        await app.stop();
      }
    };
    // A first start fills each side's compile cache (when its start script keeps one).
    for (const s of [sides.baseline, sides.current]) await startOnce(s, false);
    for (let run = 0; run < o.runs; run++) {
      const order =
        run % 2 === 0 ? [sides.baseline, sides.current] : [sides.current, sides.baseline];
      for (const s of order) {
        const m = await startOnce(s, true);
        s.idleRssMiB.push(round(m.idle.rss / MiB));
        s.idleHwmMiB.push(round(m.idle.hwm / MiB));
        s.relayHwmMiB.push(round((m.relayHwm ?? Number.NaN) / MiB));
        s.relaySeconds.push(round(m.seconds ?? Number.NaN, 2));
        process.stderr.write(
          `footprint: ${s === sides.current ? "current" : "baseline"} ${JSON.stringify({ idle: m.idle, relayHwm: m.relayHwm, seconds: m.seconds })}\n`,
        );
      }
    }
    return { runs: o.runs, settleMs: o.settleMs, relayMiB: o.relayMiB, mbit: o.mbit, sides };
  } finally {
    for (const link of links) await link.stop();
    await emulator.stop();
    await fake.stop();
    await temp.cleanup();
  }
}

export function renderFootprint(r: FootprintResult, at: RunFacts): string {
  const verdict = (ok: boolean) => (ok ? "met" : "**missed**");
  const row = (name: string, s: FootprintSide) => {
    const env = Object.keys(s.start.env).join(", ") || "–";
    const idle = median(s.idleRssMiB);
    const relay = median(s.relayHwmMiB);
    return `| ${name} | \`${s.start.nodeArgs.join(" ") || "–"}\`; ${env} | ${idle} | ${median(s.idleHwmMiB)} | ${s.idleRssMiB.join(", ")} | ${verdict(idle <= IDLE_TARGET_MIB)} | ${relay} | ${s.relayHwmMiB.join(", ")} | ${median(s.relaySeconds)} | ${verdict(Math.max(...s.relayHwmMiB) <= RELAY_HWM_TARGET_MIB)} |`;
  };
  const link =
    r.mbit > 0
      ? `each behind a ${r.mbit} Mbit/s link (each direction; \`throttle-proxy.ts\`, as in §6)`
      : "on loopback (no link)";
  return [
    "## 11. Footprint: the idle app and one relay (issue 27)",
    "",
    `Measured ${at.date} UTC, load average ${at.load.toFixed(1)} at the start.`,
    "",
    "The real app of each checkout (`src/main.ts`), started as its `npm start` runs it (the",
    "variables and Node options of its start script, V8 flags as arguments of `node`; a compile",
    "cache kept where the script keeps one, filled by a first start not counted), HTTP mode, a",
    `SQLite store of its own, against the fake Slack and the emulator in processes of their own, ${link}.`,
    `Idle: \`/proc/PID/status\` read ${r.settleMs / 1000} s after its \`started\` line. Then, in the same process, one`,
    `relay: a signed \`file_share\` event for a sparse ${r.relayMiB} MiB \`.mp3\`, timed until the emulator has`,
    "the whole upload (size and hash), and `VmHWM` (the kernel's high-water mark of RSS) read",
    `just before the app is stopped. ${r.runs} run(s) each, taking turns; medians.`,
    `Baseline: \`${existsSync(r.sides.baseline.root) ? r.sides.baseline.root : "?"}\`.`,
    "",
    `| code | start script | idle VmRSS (MiB) | idle VmHWM (MiB) | every run's idle VmRSS | idle ≤ ${IDLE_TARGET_MIB} MiB | relay VmHWM (MiB) | every run's relay VmHWM | relay (s) | every relay ≤ ${RELAY_HWM_TARGET_MIB} MiB |`,
    "|---|---|---:|---:|---|---|---:|---|---:|---|",
    row("baseline", r.sides.baseline),
    row("**current**", r.sides.current),
  ].join("\n");
}
