/**
 * `npm run bench`: runs the benchmarks (not part of `npm test`) and writes the figures with
 * the machine's facts to support/bench/RESULTS.md. `BENCH=relay,restart` runs some of them and
 * replaces only their sections of the file; `npm run bench -- --quick` runs the default ones
 * once and small (≈90 s) and only prints them. Knobs for quicker runs:
 *   BENCH_SIZES_MB=50,150,300  BENCH_RELAY_RUNS=3
 *   BENCH_RATES=50,200,500     BENCH_ACK_SECONDS=3  BENCH_ACK_ROUNDS=3
 *   BENCH_ACK_LOADS=autocannon,paced  BENCH_ACK_KINDS=event,command
 *   BENCH_JOBS=1000,5000       BENCH_WINDOW_S=45
 *   BENCH_RESTART_JOBS=10000   BENCH_RESTART_RUNS=3   BENCH_RESTART_STORES=sqlite,redis
 *   BENCH_RESTART_BASELINE=/path/to/checkout (the code before, measured beside; unset: none)
 *   BENCH_RESTART_WINDOW_S=20  (each app watched this long after its start)
 *   BENCH_RESTART_TIMELINE=1   (logs each run's polls a second)
 *   BENCH_CPU_PROF=DIR         (ack-latency, restart: the measured processes write CPU profiles)
 * The fleet benchmark is long (≈1 h at its defaults) and runs only when named: `BENCH=fleet`.
 *   BENCH_FLEET_BASELINE=/path/to/checkout   the code before the due queue, measured beside
 *                                            this checkout's (unset: this checkout only)
 *   BENCH_FLEET_JOBS=1000,10000  BENCH_FLEET_REPLICAS=1,2,4 (none: no Redis runs)
 *   BENCH_FLEET_SQLITE=1 (0: none)
 *   BENCH_FLEET_WINDOW_S=30      BENCH_FLEET_LEASE_S=10      BENCH_FLEET_MIX=50,20,30
 *   BENCH_FLEET_METRICS_JOBS=    (default: the largest of BENCH_FLEET_JOBS; 0: not timed)
 *   BENCH_FLEET_WAKE_DELAY_S=20  BENCH_FLEET_SETTLE_S=10     BENCH_FLEET_NOTICE_DIALOG_KB=400
 *   BENCH_FLEET_NOTICE_SAMPLE=100 (jobs finishing while the rest run; 0: none)
 *   BENCH_FLEET_NOTICE_BURST=1   (then every task at once; 0: not)
 *   BENCH_FLEET_NOTICE_WAIT_S=   (default 90 s + 20 ms per job)
 *   BENCH_FLEET_REDIS_URL=       (default: a private redis-server, so its command counts are ours)
 *   BENCH_FLEET_NODE_OPTIONS=    (NODE_OPTIONS of the replicas and the app after the V8 flags
 *                                of `npm start`, e.g. --expose-gc for the live heap)
 * Issue 15's two run only when named too (minutes each): `BENCH=relay-throttled,prepare`.
 *   RELAY_MBIT=100               (relay-throttled: each direction of each server's link)
 *   BENCH_THROTTLED_MB=300       BENCH_THROTTLED_RUNS=3
 *   BENCH_APP_MAIN=PATH          (relay-throttled, ack-latency: another build of the bot)
 *   BENCH_PREPARE_MINUTES=60     BENCH_PREPARE_RUNS=3
 * Issue 22's busy workspace runs only when named: `BENCH=slack-load`.
 *   BENCH_LOAD_JOBS=100          BENCH_LOAD_RATE_SCALE=1 (Slack's tiers times this)
 * The SQLite active index (seconds): BENCH_INDEX_IDS=5000  BENCH_INDEX_RUNS=5
 * Issue 27's poll lag (≈15 s: simulated tasks, then real jobs against the emulator):
 *   BENCH_LAG_TASKS=1000 (simulated tasks per progress shape)  BENCH_LAG_E2E_JOBS=4
 * Issue 27's footprint runs only when named: `BENCH=footprint` (the idle app and one relay
 * per start, two checkouts; ≈1 min per start at 100 Mbit/s).
 *   BENCH_FOOTPRINT_BASELINE=/path/to/checkout (required)  BENCH_FOOTPRINT_RUNS=3
 *   BENCH_FOOTPRINT_SETTLE_S=2  (seconds after start-up before the app's memory is read)
 *   BENCH_FOOTPRINT_RELAY_MB=300  RELAY_MBIT=100 (each link's; 0: no link)
 * Issue 36's start-up beside a bare Bolt app (≈1.5 min; quick: 3 turns):
 *   BENCH_STARTUP_RUNS=10  BENCH_STARTUP_SETTLE_S=2  BENCH_STARTUP_MODE=socket (or http)
 *   BENCH_STARTUP_BASELINE=/path/to/checkout (its bot takes turns too; unset: none)
 * Issue 34's naming submission on Slack's bad days runs only when named: `BENCH=naming-effect`
 * (≈2–5 min per scenario).
 *   BENCH_NAMING_SCENARIOS=lost,slow,lost+slow  BENCH_NAMING_RUNS=30  BENCH_NAMING_PARALLEL=2
 */
import { execFileSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { cpus, loadavg, release, totalmem } from "node:os";
import { fileURLToPath } from "node:url";
import { type AckKind, type AckLoad, benchAckLatency } from "./ack-latency.ts";
import { benchFleet, CURRENT_ROOT } from "./fleet.ts";
import { benchFootprint, renderFootprint } from "./footprint.ts";
import { benchManyJobs, type ManyJobsResult } from "./many-jobs.ts";
import { benchNamingEffect, type NamingScenario, renderNamingEffect } from "./naming-effect.ts";
import { benchPollLag, renderPollLag } from "./poll-lag.ts";
import { benchPrepare, renderPrepare } from "./prepare.ts";
import { benchRelay } from "./relay.ts";
import { benchRelayThrottled, renderRelayThrottled } from "./relay-throttled.ts";
import {
  type RunFacts,
  renderAckLatency,
  renderFleet,
  renderManyJobs,
  renderRelay,
  renderRestart,
} from "./report.ts";
import { benchRestart, type RestartStore } from "./restart.ts";
import { mergeResults } from "./results-file.ts";
import { LOAD_BENCH, renderSlackLoad, runSlackLoad } from "./slack-load.ts";
import { benchStartup, renderStartup, type StartupMode } from "./startup.ts";
import { benchStoreIndex, renderStoreIndex } from "./store-index.ts";
import { envNumber, envNumbers } from "./support.ts";

const NAMES = [
  "relay",
  "ack-latency",
  "many-jobs",
  "restart",
  "fleet",
  "relay-throttled",
  "prepare",
  "slack-load",
  "store-index",
  "poll-lag",
  "footprint",
  "naming-effect",
  "startup",
] as const;
type Name = (typeof NAMES)[number];
/**
 * Run only when named in BENCH: the fleet takes about an hour at its defaults; the relay
 * over a throttled link ≈7 minutes, preparing an hour of video 2–4 (and it needs FFmpeg), a
 * busy workspace at Slack's own rate tiers ≈10–20.
 */
const OPT_IN: readonly Name[] = [
  "fleet",
  "relay-throttled",
  "prepare",
  "slack-load",
  "footprint",
  "naming-effect",
];

/**
 * `npm run bench -- --quick`: the default benchmarks, each once and small (≈90 s), to
 * see that they run and roughly where the figures stand; printed, RESULTS.md left alone.
 */
const quick = process.argv.includes("--quick");
const only = (process.env.BENCH ?? "")
  .split(",")
  .map((name) => name.trim())
  .filter(Boolean);
for (const name of only) {
  if (!(NAMES as readonly string[]).includes(name)) {
    throw new Error(`BENCH=${name}: not one of ${NAMES.join(", ")}`);
  }
}
const selected = NAMES.filter((name) =>
  only.length === 0 ? !OPT_IN.includes(name) : only.includes(name),
);
const sections = new Map<Name, string>();
const facts = (): RunFacts => ({
  date: new Date().toISOString().slice(0, 16).replace("T", " "),
  load: loadavg()[0] ?? 0,
});
const log = (text: string) => process.stderr.write(`${text}\n`);
const started = performance.now();
const loadAtStart = loadavg()[0] ?? 0;

for (const name of selected) {
  const at = facts();
  const t0 = performance.now();
  log(`== ${name}`);
  switch (name) {
    case "relay": {
      const sizes = envNumbers("BENCH_SIZES_MB", quick ? [50] : [50, 150, 300]);
      const results = await benchRelay(sizes, envNumber("BENCH_RELAY_RUNS", quick ? 1 : 3));
      sections.set(name, renderRelay(results, { ...at, curl: curlVersion() }));
      break;
    }
    case "ack-latency": {
      const loads = (process.env.BENCH_ACK_LOADS ?? (quick ? "paced" : "autocannon,paced"))
        .split(",")
        .map((l) => l.trim()) as AckLoad[];
      const results = await benchAckLatency(
        envNumbers("BENCH_RATES", quick ? [200] : [50, 200, 500]),
        envNumber("BENCH_ACK_SECONDS", quick ? 1 : 3),
        (process.env.BENCH_ACK_KINDS ?? "event,command")
          .split(",")
          .map((k) => k.trim()) as AckKind[],
        loads,
        envNumber("BENCH_ACK_ROUNDS", quick ? 1 : 3),
      );
      sections.set(name, renderAckLatency(results, at));
      break;
    }
    case "many-jobs": {
      const results: ManyJobsResult[] = [];
      for (const n of envNumbers("BENCH_JOBS", quick ? [200] : [1000, 5000])) {
        log(`many-jobs: ${n} jobs…`);
        results.push(await benchManyJobs(n, envNumber("BENCH_WINDOW_S", quick ? 5 : 45) * 1000));
        log(`many-jobs: ${JSON.stringify(results.at(-1))}`);
      }
      sections.set(name, renderManyJobs(results, at));
      break;
    }
    case "restart": {
      const result = await benchRestart({
        jobs: envNumber("BENCH_RESTART_JOBS", quick ? 500 : 10_000),
        runs: envNumber("BENCH_RESTART_RUNS", quick ? 1 : 3),
        stores: (process.env.BENCH_RESTART_STORES ?? "sqlite,redis")
          .split(",")
          .map((s) => s.trim())
          .filter((s): s is RestartStore => s === "sqlite" || s === "redis"),
        baseline: process.env.BENCH_RESTART_BASELINE?.trim() || undefined,
        windowS: envNumber("BENCH_RESTART_WINDOW_S", 20),
      });
      log(`restart: ${JSON.stringify(result)}`);
      sections.set(name, renderRestart(result, at));
      break;
    }
    case "fleet": {
      const jobs = envNumbers("BENCH_FLEET_JOBS", [1000, 10_000]);
      const result = await benchFleet({
        jobs,
        // "none": the SQLite process only.
        replicas:
          process.env.BENCH_FLEET_REPLICAS?.trim() === "none"
            ? []
            : envNumbers("BENCH_FLEET_REPLICAS", [1, 2, 4]),
        sqlite: envSwitch("BENCH_FLEET_SQLITE", true),
        windowS: envNumber("BENCH_FLEET_WINDOW_S", 30),
        leaseS: envNumber("BENCH_FLEET_LEASE_S", 10),
        mix: envNumbers("BENCH_FLEET_MIX", [50, 20, 30]),
        baseline: process.env.BENCH_FLEET_BASELINE?.trim() || undefined,
        current: CURRENT_ROOT,
        metricsJobs:
          process.env.BENCH_FLEET_METRICS_JOBS?.trim() === "0"
            ? 0
            : envNumber("BENCH_FLEET_METRICS_JOBS", Math.max(...jobs)),
        wakeDelayS: envNumber("BENCH_FLEET_WAKE_DELAY_S", 20),
        settleS: envNumber("BENCH_FLEET_SETTLE_S", 10),
        noticeDialogKiB: envNumber("BENCH_FLEET_NOTICE_DIALOG_KB", 400),
        noticeSample:
          process.env.BENCH_FLEET_NOTICE_SAMPLE?.trim() === "0"
            ? 0
            : envNumber("BENCH_FLEET_NOTICE_SAMPLE", 100),
        noticeBurst: envSwitch("BENCH_FLEET_NOTICE_BURST", true),
        noticeWaitS: process.env.BENCH_FLEET_NOTICE_WAIT_S?.trim()
          ? envNumber("BENCH_FLEET_NOTICE_WAIT_S", 90)
          : undefined,
        redisUrl: process.env.BENCH_FLEET_REDIS_URL?.trim() || undefined,
        nodeOptions: process.env.BENCH_FLEET_NODE_OPTIONS?.trim() || undefined,
      });
      sections.set(name, renderFleet(result, at));
      break;
    }
    case "relay-throttled": {
      const result = await benchRelayThrottled({
        sizeMiB: envNumber("BENCH_THROTTLED_MB", 300),
        mbit: envNumber("RELAY_MBIT", 100),
        runs: envNumber("BENCH_THROTTLED_RUNS", 3),
        main: process.env.BENCH_APP_MAIN?.trim() || undefined,
      });
      log(`relay-throttled: ${JSON.stringify(result)}`);
      sections.set(name, renderRelayThrottled(result, at));
      break;
    }
    case "slack-load": {
      const options = {
        ...LOAD_BENCH,
        jobs: envNumber("BENCH_LOAD_JOBS", LOAD_BENCH.jobs),
        rateScale: envNumber("BENCH_LOAD_RATE_SCALE", LOAD_BENCH.rateScale),
      };
      const result = await runSlackLoad(options);
      log(`slack-load: ${JSON.stringify(result)}`);
      sections.set(name, renderSlackLoad(result, options, at));
      break;
    }
    case "store-index": {
      const result = await benchStoreIndex(
        envNumber("BENCH_INDEX_IDS", 5000),
        envNumber("BENCH_INDEX_RUNS", quick ? 1 : 5),
      );
      log(`store-index: ${JSON.stringify(result)}`);
      sections.set(name, renderStoreIndex(result, at));
      break;
    }
    case "poll-lag": {
      const result = await benchPollLag(
        envNumber("BENCH_LAG_TASKS", quick ? 200 : 1000),
        envNumber("BENCH_LAG_E2E_JOBS", quick ? 2 : 4),
      );
      log(`poll-lag: ${JSON.stringify(result.shapes.slice(0, 6))}`);
      sections.set(name, renderPollLag(result, at));
      break;
    }
    case "footprint": {
      const baseline = process.env.BENCH_FOOTPRINT_BASELINE;
      if (baseline === undefined) throw new Error("BENCH=footprint needs BENCH_FOOTPRINT_BASELINE");
      const result = await benchFootprint({
        baseline,
        runs: envNumber("BENCH_FOOTPRINT_RUNS", quick ? 1 : 3),
        settleMs: envNumber("BENCH_FOOTPRINT_SETTLE_S", 2) * 1000,
        relayMiB: envNumber("BENCH_FOOTPRINT_RELAY_MB", 300),
        // 0: no link (envNumber takes positive numbers only).
        mbit: process.env.RELAY_MBIT?.trim() === "0" ? 0 : envNumber("RELAY_MBIT", 100),
      });
      log(`footprint: ${JSON.stringify(result.sides)}`);
      sections.set(name, renderFootprint(result, at));
      break;
    }
    case "startup": {
      const mode = process.env.BENCH_STARTUP_MODE?.trim() || "socket";
      if (mode !== "socket" && mode !== "http") {
        throw new Error(`BENCH_STARTUP_MODE must be socket or http, not "${mode}"`);
      }
      const result = await benchStartup({
        mode: mode satisfies StartupMode,
        runs: envNumber("BENCH_STARTUP_RUNS", quick ? 3 : 10),
        settleMs: envNumber("BENCH_STARTUP_SETTLE_S", 2) * 1000,
        baseline: process.env.BENCH_STARTUP_BASELINE?.trim() || undefined,
      });
      log(`startup: ${JSON.stringify(result.sides)}`);
      sections.set(name, renderStartup(result, at));
      break;
    }
    case "naming-effect": {
      const options = {
        scenarios: (process.env.BENCH_NAMING_SCENARIOS ?? "lost,slow,lost+slow")
          .split(",")
          .map((s) => s.trim())
          .filter((s): s is NamingScenario => ["lost", "slow", "lost+slow"].includes(s)),
        runs: envNumber("BENCH_NAMING_RUNS", quick ? 4 : 30),
        parallel: envNumber("BENCH_NAMING_PARALLEL", 2),
      };
      const results = await benchNamingEffect(options);
      log(`naming-effect: ${JSON.stringify(results)}`);
      sections.set(name, renderNamingEffect(results, options, at));
      break;
    }
    case "prepare": {
      const result = await benchPrepare(
        envNumber("BENCH_PREPARE_MINUTES", 60),
        envNumber("BENCH_PREPARE_RUNS", 3),
      );
      log(`prepare: ${JSON.stringify(result)}`);
      sections.set(name, renderPrepare(result, at));
      break;
    }
  }
  log(`== ${name} took ${Math.round((performance.now() - t0) / 1000)} s`);
}

const cpu = cpus()[0]?.model ?? "unknown CPU";
const minutes = Math.round((performance.now() - started) / 6000) / 10;
const header = [
  "# Benchmark results",
  "",
  `Machine: ${cpus().length} × ${cpu}, ${Math.round(totalmem() / 1024 ** 3)} GiB RAM, Linux ${release()},`,
  `Node ${process.version}. Last run ${facts().date} UTC (${selected.join(", ")}; ${minutes} min,`,
  `load average ${loadAtStart.toFixed(1)} at its start, ${(loadavg()[0] ?? 0).toFixed(1)} at its end).`,
  "Run `npm run bench` to measure again (`BENCH=relay` etc. for one; knobs in `support/bench/run.ts`).",
  "",
  "Every figure is measured side by side with its baseline in the same run, taking turns,",
  "so on a busy machine (other people's test runs may share these 2 cores) the **ratios** are the figures",
  "to read; absolute times move with the load.",
].join("\n");

const out = fileURLToPath(new URL("./RESULTS.md", import.meta.url));
const previous = await readFile(out, "utf8").catch(() => "");
// Only the header and the sections measured now change: text written by hand stays.
const document = mergeResults(previous, header, sections, NAMES);
if (quick) {
  log("--quick: figures printed below, RESULTS.md left as it was.");
  process.stdout.write(`${[...sections.values()].join("\n\n")}\n`);
} else {
  await writeFile(out, document);
  process.stdout.write(document);
}

/** `1`/`0` (or unset: the default) from the environment. */
function envSwitch(name: string, fallback: boolean): boolean {
  const raw = process.env[name]?.trim();
  if (raw === undefined || raw === "") return fallback;
  if (raw !== "0" && raw !== "1") throw new Error(`${name} must be 0 or 1, not "${raw}"`);
  return raw === "1";
}

function curlVersion(): string {
  try {
    return execFileSync("/usr/bin/curl", ["--version"], { encoding: "utf8" }).split(" ")[1] ?? "?";
  } catch {
    return "?";
  }
}
