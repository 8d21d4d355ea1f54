/**
 * Issue 27: the idle footprint of the real app, this checkout's and a baseline's, taking
 * turns. Each is started as its `npm start` runs it: the environment variables and V8 flags
 * of its start script (this checkout's sets NODE_COMPILE_CACHE; its cache is filled first by
 * one start, as the first start on a machine or the image's build does), HTTP mode, a SQLite
 * store of its own, against the fake Slack and the emulator in processes of their own.
 */
import { existsSync, readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { spawnApp } from "../helpers/spawn-app.ts";
import { spawnEmulator } from "../helpers/spawn-emulator.ts";
import { makeTempDir } from "../helpers/temp-files.ts";
import type { RunFacts } from "./report.ts";
import { benchAppEnv, benchFile, MiB, median, round, sleep, spawnFakeSlack } from "./support.ts";

export const IDLE_TARGET_MIB = 110;

export interface FootprintSide {
  root: string;
  /** What the start script sets: environment (relative paths resolved) and V8 flags. */
  start: { env: Record<string, string>; flags: string };
  idleRssMiB: number[];
  idleHwmMiB: number[];
}

export interface FootprintResult {
  runs: number;
  settleMs: number;
  sides: { baseline: FootprintSide; current: FootprintSide };
}

/** The `npm start` of a checkout: `VAR=${VAR:-default}` or `VAR=value` prefixes and `--max-…` flags. */
export function startScript(root: string, cacheDir: string): FootprintSide["start"] {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    scripts?: { start?: string };
  };
  const script = pkg.scripts?.start ?? "";
  const env: Record<string, string> = {};
  for (const m of script.matchAll(/(?:^|\s)([A-Z_]+)=(?:\$\{[A-Z_]+:-([^}]*)\}|(\S+))/g)) {
    const [, name, fallback, value] = m;
    // The compile cache goes to a folder of the benchmark's, not the checkout's.
    if (name !== undefined)
      env[name] = name === "NODE_COMPILE_CACHE" ? cacheDir : (fallback ?? value ?? "");
  }
  const flags = (script.match(/--max-[\w-]+=\d+/g) ?? []).join(" ");
  return { env, flags };
}

export async function benchFootprint(o: {
  baseline: string;
  runs: number;
  settleMs: number;
}): Promise<FootprintResult> {
  const temp = await makeTempDir("mn-bench-footprint-");
  const fake = await spawnFakeSlack();
  const emulator = await spawnEmulator({});
  const current = benchFile("../..");
  const side = (root: string, name: string): FootprintSide => ({
    root,
    start: startScript(root, join(temp.dir, `${name}-compile-cache`)),
    idleRssMiB: [],
    idleHwmMiB: [],
  });
  const sides = { baseline: side(o.baseline, "baseline"), current: side(current, "current") };
  let n = 0;
  const startOnce = async (s: FootprintSide) => {
    const dir = join(temp.dir, `app-${n++}`);
    await mkdir(dir);
    const env = benchAppEnv(
      { botToken: fake.botToken, apiUrl: fake.apiUrl },
      { baseUrl: emulator.baseUrl, apiKey: emulator.apiKey },
      `sqlite://${dir}/app.sqlite`,
    );
    const app = await spawnApp(
      { ...env, ...s.start.env, NODE_OPTIONS: s.start.flags },
      join(s.root, "src/main.ts"),
    );
    await sleep(o.settleMs);
    const status = readFileSync(`/proc/${app.child.pid}/status`, "utf8");
    await app.stop();
    const kib = (field: string) =>
      Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1]) * 1024;
    return { rss: kib("VmRSS"), hwm: kib("VmHWM") };
  };
  try {
    // A first start fills each side's compile cache (when its start script keeps one).
    for (const s of [sides.baseline, sides.current]) await startOnce(s);
    for (let run = 0; run < o.runs; run++) {
      const order =
        run % 2 === 0 ? [sides.baseline, sides.current] : [sides.current, sides.baseline];
      for (const s of order) {
        const m = await startOnce(s);
        s.idleRssMiB.push(round(m.rss / MiB));
        s.idleHwmMiB.push(round(m.hwm / MiB));
        process.stderr.write(
          `footprint: ${s === sides.current ? "current" : "baseline"} ${JSON.stringify(m)}\n`,
        );
      }
    }
    return { runs: o.runs, settleMs: o.settleMs, sides };
  } finally {
    await emulator.stop();
    await fake.stop();
    await temp.cleanup();
  }
}

export function renderFootprint(r: FootprintResult, at: RunFacts): string {
  const row = (name: string, s: FootprintSide) => {
    const env = Object.keys(s.start.env).join(", ") || "–";
    return `| ${name} | \`${s.start.flags || "–"}\`; ${env} | ${median(s.idleRssMiB)} | ${median(s.idleHwmMiB)} | ${s.idleRssMiB.join(", ")} | ${median(s.idleRssMiB) <= IDLE_TARGET_MIB ? "met" : "**missed**"} |`;
  };
  return [
    "## 11. Footprint: the idle app (issue 27)",
    "",
    `Measured ${at.date} UTC, load average ${at.load.toFixed(1)} at the start.`,
    "",
    "The real app of each checkout (`src/main.ts`), started as its `npm start` runs it (the",
    "V8 flags and variables of its start script; a compile cache kept where the script keeps",
    "one, filled by a first start not counted), HTTP mode, a SQLite store of its own, against the",
    "fake Slack and the emulator in processes of their own; `/proc/PID/status` read",
    `${r.settleMs / 1000} s after its \`started\` line. ${r.runs} run(s) each, taking turns; medians.`,
    `Baseline: \`${existsSync(r.sides.baseline.root) ? r.sides.baseline.root : "?"}\`.`,
    "",
    `| code | start script | idle VmRSS (MiB) | idle VmHWM (MiB) | every run's VmRSS | target ≤ ${IDLE_TARGET_MIB} MiB |`,
    "|---|---|---:|---:|---|---|",
    row("baseline", r.sides.baseline),
    row("**current**", r.sides.current),
  ].join("\n");
}
