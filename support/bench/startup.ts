/**
 * Issue 36: how long the bot takes to start and what it holds once idle, beside a bare Bolt
 * app (`bare-bolt-app.ts`, no-op listeners) in one run, taking turns against the same fake
 * Slack (its own process) and, for the bot, the emulator. Both are started alike: this
 * checkout's `npm start` Node options and NODE_COMPILE_CACHE (a folder per app, filled by a
 * first start not counted), PATH and the Slack variables of the mode. The bot adds what it
 * needs besides: the Note Service's address and key, a SQLite store in a temp folder.
 * Start → ready: from just before the spawn until the process writes its line saying its
 * start resolved (the bot's "meeting-notes started", after which its /readyz must answer
 * 200; the bare app's `{"port":…}` after `app.start()`); the CPU the process used until
 * then, from /proc. Idle: VmRSS from /proc/PID/status `settleMs` after that line. With
 * `baseline` (another checkout), its bot takes its turns too, started as its own `npm start`.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { childEnv } from "../helpers/child-env.ts";
import { spawnEmulator } from "../helpers/spawn-emulator.ts";
import { stopChild } from "../helpers/stop-child.ts";
import { makeTempDir } from "../helpers/temp-files.ts";
import { startScript } from "./footprint.ts";
import type { RunFacts } from "./report.ts";
import type { StartScript } from "./start-script.ts";
import { benchAppEnv, benchFile, MiB, median, round, sleep, spawnFakeSlack } from "./support.ts";

/** The acceptance: the bot within these multiples of the bare app's medians. */
export const START_RATIO_TARGET = 1.5;
export const RSS_RATIO_TARGET = 1.2;

export type StartupMode = "socket" | "http";

export interface StartupSide {
  /** What is started: the bare app, this checkout's bot, or a baseline checkout's. */
  name: "bare" | "bot" | "baseline";
  root: string;
  start: StartScript;
  /** Spawn → ready, ms. */
  readyMs: number[];
  /** CPU time (user + system) the process used until ready, ms. */
  cpuMs: number[];
  /** VmRSS once settled, MiB. */
  idleRssMiB: number[];
}

export interface StartupResult {
  mode: StartupMode;
  runs: number;
  settleMs: number;
  sides: StartupSide[];
}

interface Started {
  child: ChildProcess;
  readyMs: number;
  cpuMs: number;
  /** The bot's HTTP port (its /readyz); null for the bare app in Socket Mode. */
  port: number | null;
}

/** user + system CPU time of a live process, ms (clock ticks of 10 ms on Linux). */
function cpuMsOf(child: ChildProcess): number {
  const fields = readFileSync(`/proc/${child.pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function vmRss(child: ChildProcess): number {
  const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]) * 1024;
}

/** Spawns `node …nodeArgs script` and resolves when a stdout line matches `ready`. */
async function spawnUntilReady(
  script: string,
  start: StartScript,
  env: Record<string, string>,
  ready: (line: string) => { port: number | null } | undefined,
): Promise<Started> {
  const started = performance.now();
  const child = spawn(process.execPath, [...start.nodeArgs, script], {
    env: { ...childEnv(), ...env, ...start.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  createInterface({ input: child.stderr }).on("line", (line) => lines.push(line));
  try {
    return await new Promise<Started>((resolve, reject) => {
      createInterface({ input: child.stdout }).on("line", (line) => {
        lines.push(line);
        const seen = ready(line);
        if (seen === undefined) return;
        const readyMs = performance.now() - started;
        resolve({ child, readyMs, cpuMs: cpuMsOf(child), port: seen.port });
      });
      child.once("exit", (code) =>
        reject(new Error(`${script} exited with ${code}:\n${lines.slice(-20).join("\n")}`)),
      );
    });
  } catch (error) {
    await stopChild(child);
    throw error;
  }
}

export async function benchStartup(o: {
  mode: StartupMode;
  runs: number;
  settleMs: number;
  baseline?: string | undefined;
}): Promise<StartupResult> {
  const temp = await makeTempDir("mn-bench-startup-");
  const socketMode = o.mode === "socket";
  // Dozens of connections a minute: far above Tier 1's `apps.connections.open`.
  const fake = await spawnFakeSlack([], { socketMode, rateScale: 1000 });
  const emulator = await spawnEmulator();
  const current = benchFile("../..");
  const side = (name: StartupSide["name"], root: string): StartupSide => ({
    name,
    root,
    start: startScript(root, join(temp.dir, `${name}-compile-cache`)),
    readyMs: [],
    cpuMs: [],
    idleRssMiB: [],
  });
  // The bare app is started as this checkout's `npm start` starts the bot.
  const sides = [side("bare", current), side("bot", current)];
  if (o.baseline !== undefined) sides.push(side("baseline", o.baseline));
  const slackEnv: Record<string, string> = {
    SLACK_BOT_TOKEN: fake.botToken,
    SLACK_API_URL: fake.apiUrl,
    ...(socketMode
      ? { SLACK_APP_TOKEN: fake.appToken ?? "" }
      : { SLACK_SIGNING_SECRET: "bench-signing-secret-0123456789" }),
  };
  let n = 0;
  const startBare = (s: StartupSide) =>
    spawnUntilReady(benchFile("./bare-bolt-app.ts"), s.start, slackEnv, (line) =>
      line.startsWith('{"port"') ? (JSON.parse(line) as { port: number | null }) : undefined,
    );
  const startBot = async (s: StartupSide) => {
    const dir = join(temp.dir, `bot-${n++}`);
    await mkdir(dir);
    const env = benchAppEnv(
      { botToken: fake.botToken, apiUrl: fake.apiUrl },
      { baseUrl: emulator.baseUrl, apiKey: emulator.apiKey },
      `sqlite://${dir}/app.sqlite`,
    );
    if (socketMode) delete env.SLACK_SIGNING_SECRET;
    const app = await spawnUntilReady(
      join(s.root, "src/main.ts"),
      s.start,
      { ...env, ...slackEnv, PORT: "0" },
      (line) => {
        if (!line.includes('"msg":"meeting-notes started"')) return undefined;
        return { port: Number(/"port":(\d+)/.exec(line)?.[1]) };
      },
    );
    // Not timed: ready means ready to a probe too.
    const probe = await fetch(`http://127.0.0.1:${app.port}/readyz`);
    if (probe.status !== 200) {
      await stopChild(app.child);
      throw new Error(`the bot said it started, but /readyz answered ${probe.status}`);
    }
    return app;
  };
  const turn = async (s: StartupSide, counted: boolean) => {
    const app = await (s.name === "bare" ? startBare(s) : startBot(s));
    try {
      await sleep(o.settleMs);
      const rss = vmRss(app.child);
      if (!counted) return;
      s.readyMs.push(Math.round(app.readyMs));
      s.cpuMs.push(app.cpuMs);
      s.idleRssMiB.push(round(rss / MiB));
      process.stderr.write(
        `startup: ${s.name} ${Math.round(app.readyMs)} ms, CPU ${app.cpuMs} ms, ${round(rss / MiB)} MiB\n`,
      );
    } finally {
      await stopChild(app.child);
    }
  };
  try {
    // A first start of each fills its compile cache, as the first start on a machine does.
    for (const s of sides) await turn(s, false);
    for (let run = 0; run < o.runs; run++) {
      // Each turn begins with the next one: none always goes first.
      const order = sides.map((_, i) => sides[(i + run) % sides.length] as StartupSide);
      for (const s of order) await turn(s, true);
    }
    return { mode: o.mode, runs: o.runs, settleMs: o.settleMs, sides };
  } finally {
    await emulator.stop();
    await fake.stop();
    await temp.cleanup();
  }
}

const stats = (values: readonly number[]) =>
  `${Math.min(...values)} / **${round(median(values))}** / ${Math.max(...values)}`;

/** A bot's medians over the bare app's, two decimals. */
export function startupRatios(bot: StartupSide, bare: StartupSide) {
  const ratio = (a: number[], b: number[]) => round(median(a) / median(b), 2);
  return {
    start: ratio(bot.readyMs, bare.readyMs),
    cpu: ratio(bot.cpuMs, bare.cpuMs),
    rss: ratio(bot.idleRssMiB, bare.idleRssMiB),
  };
}

export function renderStartup(r: StartupResult, at: RunFacts): string {
  const verdict = (ok: boolean) => (ok ? "met" : "**missed**");
  const mode = r.mode === "socket" ? "Socket Mode" : "HTTP mode";
  const bare = r.sides.find((s) => s.name === "bare");
  const bot = r.sides.find((s) => s.name === "bot");
  if (bare === undefined || bot === undefined) throw new Error("startup: no bare app or bot");
  const label = { bare: "bare Bolt app", bot: "**the bot**", baseline: "the bot, baseline" };
  const row = (s: StartupSide) => {
    const x = startupRatios(s, bare);
    const ratios =
      s === bare
        ? "– | – | –"
        : `${x.start.toFixed(2)}× (≤ ${START_RATIO_TARGET}×: ${verdict(x.start <= START_RATIO_TARGET)}) | ${x.cpu.toFixed(2)}× | ${x.rss.toFixed(2)}× (≤ ${RSS_RATIO_TARGET}×: ${verdict(x.rss <= RSS_RATIO_TARGET)})`;
    return `| ${label[s.name]} | ${stats(s.readyMs)} | ${stats(s.cpuMs)} | ${stats(s.idleRssMiB)} | ${ratios} |`;
  };
  const baseline = r.sides.find((s) => s.name === "baseline");
  return [
    "## 13. Start-up and idle memory beside a bare Bolt app (issue 36)",
    "",
    `Measured ${at.date} UTC, load average ${at.load.toFixed(1)} at the start.`,
    `Command: \`BENCH=startup${baseline === undefined ? "" : " BENCH_STARTUP_BASELINE=…"} npm run bench\` (${r.runs} turns each, ${mode}).`,
    "",
    "The bot (`src/main.ts`: a SQLite store in a temp folder of its own, the emulator as the",
    "Note Service) and a bare Bolt app (`support/bench/bare-bolt-app.ts`: no-op listeners),",
    `both in ${mode} against the same fake Slack in a process of its own, started alike:`,
    `\`node ${bot.start.nodeArgs.join(" ")}\` with NODE_COMPILE_CACHE, as \`npm start\` runs the bot (a`,
    "cache per app, filled by a first start not counted). Taking turns, a different one first",
    "each turn. Start → ready: spawn until the process writes that its start resolved (the",
    "bot's \"meeting-notes started\", after which its `/readyz` answered 200; the bare app's",
    "line after `app.start()`), and the CPU time its threads used until then (`/proc/PID/stat`,",
    `10 ms ticks). Idle: VmRSS from \`/proc/PID/status\` ${r.settleMs / 1000} s after that line.`,
    ...(baseline === undefined
      ? []
      : [
          `Baseline: the bot at \`${commitOf(baseline.root)}\` (a checkout of its own), started as its own \`npm start\` runs it.`,
        ]),
    "",
    "| app | start → ready, ms (min / **median** / max) | CPU to ready, ms | idle VmRSS, MiB | start ÷ bare | CPU ÷ bare | RSS ÷ bare |",
    "|---|---|---|---|---|---|---|",
    ...r.sides.map(row),
    "",
    ...r.sides.map(
      (s) =>
        `Every run, ${label[s.name]}: ${s.readyMs.join(", ")} ms; ${s.idleRssMiB.join(", ")} MiB.`,
    ),
  ].join("\n");
}

/** The checkout's commit, short, or "?" when it is not a git checkout. */
function commitOf(root: string): string {
  try {
    return execFileSync("git", ["-C", root, "rev-parse", "--short", "HEAD"], {
      encoding: "utf8",
    }).trim();
  } catch {
    return "?";
  }
}
