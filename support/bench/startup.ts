/**
 * Issue 36: how long the bot takes to start and what it holds once idle, beside a bare Bolt
 * app (`bare-bolt-app.ts`, no-op listeners) in one run, taking turns against the same fake
 * Slack (its own process) and, for the bot, the emulator. Both are started alike: this
 * checkout's `npm start` Node options and NODE_COMPILE_CACHE (a folder per app, filled by a
 * first start not counted), PATH and the Slack variables of the mode. The bot adds what it
 * needs besides: the Note Service's address and key, a SQLite store in a temp folder.
 * Start → ready: from just before the spawn until the process writes its line saying its
 * start resolved (the bot's "meeting-notes started", after which its /readyz must answer
 * 200; the bare app's `{"port":…}` after `app.start()`). Idle: VmRSS from /proc/PID/status
 * `settleMs` after that line.
 */
import { type ChildProcess, spawn } from "node:child_process";
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
import { benchAppEnv, benchFile, MiB, median, round, sleep, spawnFakeSlack } from "./support.ts";

/** The acceptance: the bot within these multiples of the bare app's medians. */
export const START_RATIO_TARGET = 1.5;
export const RSS_RATIO_TARGET = 1.2;

export type StartupMode = "socket" | "http";

export interface StartupSide {
  /** Spawn → ready, ms. */
  readyMs: number[];
  /** VmRSS once settled, MiB. */
  idleRssMiB: number[];
}

export interface StartupResult {
  mode: StartupMode;
  runs: number;
  settleMs: number;
  nodeArgs: string[];
  sides: { bare: StartupSide; bot: StartupSide };
}

interface Started {
  child: ChildProcess;
  readyMs: number;
  /** The bot's HTTP port (its /readyz); null for the bare app in Socket Mode. */
  port: number | null;
}

/** Spawns `node …nodeArgs script` and resolves when a stdout line matches `ready`. */
async function spawnUntilReady(
  script: string,
  nodeArgs: readonly string[],
  env: Record<string, string>,
  ready: (line: string) => { port: number | null } | undefined,
): Promise<Started> {
  const started = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, script], {
    env: { ...childEnv(), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  createInterface({ input: child.stderr }).on("line", (line) => lines.push(line));
  try {
    const port = await new Promise<number | null>((resolve, reject) => {
      createInterface({ input: child.stdout }).on("line", (line) => {
        lines.push(line);
        const seen = ready(line);
        if (seen !== undefined) resolve(seen.port);
      });
      child.once("exit", (code) =>
        reject(new Error(`${script} exited with ${code}:\n${lines.slice(-20).join("\n")}`)),
      );
    });
    return { child, readyMs: performance.now() - started, port };
  } catch (error) {
    await stopChild(child);
    throw error;
  }
}

function vmRss(child: ChildProcess): number {
  const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]) * 1024;
}

export async function benchStartup(o: {
  mode: StartupMode;
  runs: number;
  settleMs: number;
}): Promise<StartupResult> {
  const temp = await makeTempDir("mn-bench-startup-");
  const socketMode = o.mode === "socket";
  // Dozens of connections a minute: far above Tier 1's `apps.connections.open`.
  const fake = await spawnFakeSlack([], { socketMode, rateScale: 1000 });
  const emulator = await spawnEmulator();
  const start = {
    bare: startScript(benchFile("../.."), join(temp.dir, "bare-compile-cache")),
    bot: startScript(benchFile("../.."), join(temp.dir, "bot-compile-cache")),
  };
  const slackEnv: Record<string, string> = {
    SLACK_BOT_TOKEN: fake.botToken,
    SLACK_API_URL: fake.apiUrl,
    ...(socketMode
      ? { SLACK_APP_TOKEN: fake.appToken ?? "" }
      : { SLACK_SIGNING_SECRET: "bench-signing-secret-0123456789" }),
  };
  let n = 0;
  const startBare = () =>
    spawnUntilReady(
      benchFile("./bare-bolt-app.ts"),
      start.bare.nodeArgs,
      { ...slackEnv, ...start.bare.env },
      (line) =>
        line.startsWith('{"port"') ? (JSON.parse(line) as { port: number | null }) : undefined,
    );
  const startBot = async () => {
    const dir = join(temp.dir, `bot-${n++}`);
    await mkdir(dir);
    const env = benchAppEnv(
      { botToken: fake.botToken, apiUrl: fake.apiUrl },
      { baseUrl: emulator.baseUrl, apiKey: emulator.apiKey },
      `sqlite://${dir}/app.sqlite`,
    );
    if (socketMode) delete env.SLACK_SIGNING_SECRET;
    const app = await spawnUntilReady(
      benchFile("../../src/main.ts"),
      start.bot.nodeArgs,
      { ...env, ...slackEnv, PORT: "0", ...start.bot.env },
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
  const sides = {
    bare: { readyMs: [], idleRssMiB: [] } as StartupSide,
    bot: { readyMs: [], idleRssMiB: [] } as StartupSide,
  };
  const turn = async (name: "bare" | "bot", counted: boolean) => {
    const app = await (name === "bare" ? startBare() : startBot());
    try {
      await sleep(o.settleMs);
      const rss = vmRss(app.child);
      if (!counted) return;
      sides[name].readyMs.push(Math.round(app.readyMs));
      sides[name].idleRssMiB.push(round(rss / MiB));
      process.stderr.write(
        `startup: ${name} ${Math.round(app.readyMs)} ms, ${round(rss / MiB)} MiB\n`,
      );
    } finally {
      await stopChild(app.child);
    }
  };
  try {
    // A first start of each fills its compile cache, as the first start on a machine does.
    await turn("bare", false);
    await turn("bot", false);
    for (let run = 0; run < o.runs; run++) {
      const order = run % 2 === 0 ? (["bare", "bot"] as const) : (["bot", "bare"] as const);
      for (const name of order) await turn(name, true);
    }
    return {
      mode: o.mode,
      runs: o.runs,
      settleMs: o.settleMs,
      nodeArgs: start.bot.nodeArgs,
      sides,
    };
  } finally {
    await emulator.stop();
    await fake.stop();
    await temp.cleanup();
  }
}

const stats = (values: readonly number[]) =>
  `${Math.min(...values)} / **${median(values)}** / ${Math.max(...values)}`;

/** The bot's median over the bare app's, two decimals. */
export function startupRatios(r: StartupResult): { start: number; rss: number } {
  const ratio = (bot: number[], bare: number[]) => round(median(bot) / median(bare), 2);
  return {
    start: ratio(r.sides.bot.readyMs, r.sides.bare.readyMs),
    rss: ratio(r.sides.bot.idleRssMiB, r.sides.bare.idleRssMiB),
  };
}

export function renderStartup(r: StartupResult, at: RunFacts): string {
  const ratios = startupRatios(r);
  const verdict = (ok: boolean) => (ok ? "met" : "**missed**");
  const mode = r.mode === "socket" ? "Socket Mode" : "HTTP mode";
  return [
    "## 13. Start-up and idle memory beside a bare Bolt app (issue 36)",
    "",
    `Measured ${at.date} UTC, load average ${at.load.toFixed(1)} at the start.`,
    `Command: \`BENCH=startup npm run bench\` (${r.runs} turns each, ${mode}).`,
    "",
    "The bot (`src/main.ts`: a SQLite store in a temp folder of its own, the emulator as the",
    "Note Service) and a bare Bolt app (`support/bench/bare-bolt-app.ts`: no-op listeners),",
    `both in ${mode} against the same fake Slack in a process of its own, started alike:`,
    `\`node ${r.nodeArgs.join(" ")}\` and NODE_COMPILE_CACHE as \`npm start\` runs the bot (a cache`,
    "per app, filled by a first start not counted). Taking turns, the order swapped each turn.",
    "Start → ready: spawn until the process writes that its start resolved (the bot's",
    '"meeting-notes started", after which its `/readyz` answered 200; the bare app\'s line',
    `after \`app.start()\`). Idle: VmRSS from \`/proc/PID/status\` ${r.settleMs / 1000} s after that line.`,
    "",
    "| app | start → ready, ms (min / **median** / max) | idle VmRSS, MiB (min / **median** / max) |",
    "|---|---|---|",
    `| bare Bolt app | ${stats(r.sides.bare.readyMs)} | ${stats(r.sides.bare.idleRssMiB)} |`,
    `| the bot | ${stats(r.sides.bot.readyMs)} | ${stats(r.sides.bot.idleRssMiB)} |`,
    `| **bot ÷ bare** | **${ratios.start.toFixed(2)}×** (target ≤ ${START_RATIO_TARGET}×: ${verdict(ratios.start <= START_RATIO_TARGET)}) | **${ratios.rss.toFixed(2)}×** (target ≤ ${RSS_RATIO_TARGET}×: ${verdict(ratios.rss <= RSS_RATIO_TARGET)}) |`,
    "",
    `Every run, ms: bare ${r.sides.bare.readyMs.join(", ")}; bot ${r.sides.bot.readyMs.join(", ")}.`,
    `Every run, MiB: bare ${r.sides.bare.idleRssMiB.join(", ")}; bot ${r.sides.bot.idleRssMiB.join(", ")}.`,
  ].join("\n");
}
