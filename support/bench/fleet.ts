/**
 * Benchmark 5, the fleet: N active jobs in a mix of stages, driven by R replica processes
 * sharing one Redis (and by one process on SQLite), for two checkouts side by side — the
 * baseline (`BENCH_FLEET_BASELINE`, a checkout before the due queue) and the code this
 * benchmark runs from — taking turns per configuration. See `renderFleet` for what each
 * figure is; `run.ts` for the knobs.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdir, readFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { createClient } from "@redis/client";
import { spawnApp } from "../helpers/spawn-app.ts";
import { type EmulatorProcess, spawnEmulator } from "../helpers/spawn-emulator.ts";
import { makeTempDir } from "../helpers/temp-files.ts";
import {
  epochNow,
  type ManifestEntry,
  POLL_MAX_MS,
  type SeedReport,
  type SeedStage,
} from "./fleet-common.ts";
import type { FleetCommand, FleetReply, PhaseFigures, Shown } from "./fleet-replica.ts";
import { type StartScript, startScriptOf } from "./start-script.ts";
import {
  benchAppEnv,
  benchFile,
  lastJson,
  median,
  percentile,
  round,
  runChild,
  sleep,
  spawnFakeSlack,
} from "./support.ts";

export interface FleetOptions {
  jobs: number[];
  replicas: number[];
  /** Also one SQLite process (R = 1) per N. */
  sqlite: boolean;
  windowS: number;
  leaseS: number;
  /** Percent of transcribing, naming, writing jobs. */
  mix: number[];
  /** A checkout of the code before the due queue; measured beside the current code. */
  baseline: string | undefined;
  /** The checkout this benchmark runs from. */
  current: string;
  /** Jobs in the store while `GET /metrics` of the real app is timed (0: not timed). */
  metricsJobs: number;
  /** Each seeded poll is due this long after its record is written, plus 0–15 s. */
  wakeDelayS: number;
  /** At least this long between the replicas' start and the window. */
  settleS: number;
  /** Size of the dialog each transcription returns once tasks complete. */
  noticeDialogKiB: number;
  /**
   * Jobs whose tasks complete while all the others keep running (spread over the polled
   * jobs): the notice latency of a fleet at work (0: not measured).
   */
  noticeSample: number;
  /** Then every other task completes at once: how a replica drains a burst. */
  noticeBurst: boolean;
  /** How long to wait for every job to show its next stage after the flip (default 90 s + 20 ms a job). */
  noticeWaitS: number | undefined;
  /** A Redis to use instead of a private `redis-server` (its commands are counted too). */
  redisUrl: string | undefined;
  /** More NODE_OPTIONS of the replicas and the real app, after the flags of `npm start`. */
  nodeOptions: string | undefined;
}

export type CodeLabel = "baseline" | "current";

export interface Quantiles {
  p50: number;
  p99: number;
  max: number;
  count: number;
}

export interface FleetRun {
  code: CodeLabel;
  jobs: number;
  store: "redis" | "sqlite";
  replicas: number;
  seed?: SeedReport;
  /** `runner.start()` per replica (ms). */
  startMs?: number[];
  windowSeconds?: number;
  redisCallsPerSecond?: number;
  /** The busiest Redis commands over the window, per second. */
  redisTop?: [string, number][];
  /** Store calls of all replicas together (counted in each process), per second. */
  storeCallsPerSecond?: number;
  leaseMissesPerSecond?: number;
  pollsPerSecond?: number;
  expectedPollsPerSecond?: number;
  window?: PhaseFigures[];
  /** Largest stored job record per seeded stage (bytes as stored, Keyv's ~35-byte wrapper included). */
  records?: Partial<Record<SeedStage, number | null>>;
  takeover?: {
    victimJobs: number;
    p50Seconds: number;
    maxSeconds: number;
    /**
     * From the time each job became claimable (its due time in the queue, or the end of
     * the dead replica's lease on it) to its poll by a survivor (Redis queue only).
     */
    afterClaimable?: { p50Seconds: number; maxSeconds: number };
    missing: number;
    leaseSeconds: number;
  };
  /** The sample's notice: its tasks complete while the rest keep polling. */
  sampleNotice?: {
    expected: number;
    noticed: number;
    latency: Quantiles;
    figures: PhaseFigures[];
  };
  notice?: {
    expected: number;
    noticed: number;
    latency: Quantiles;
    /** By the stage shown: naming (from transcribing), delivering (from writing), other. */
    byStage: Record<string, Quantiles>;
    /** Task seen done → the job's next stage shown, in the same replica (the transition). */
    transition: Record<string, Quantiles>;
    /** Jobs that changed stage before the flip (a failure: should be 0). */
    beforeFlip: Record<string, number>;
    figures: PhaseFigures[];
  };
  /** Warnings and errors the replicas logged, by message. */
  logged?: Record<string, number>;
  error?: string;
}

export interface FleetMetrics {
  code: CodeLabel;
  jobs: number;
  requests: number;
  medianMs?: number;
  maxMs?: number;
  /** Sum of `meeting_notes_jobs` over the stages in the last answer. */
  gaugeTotal?: number;
  /** `repo.countActiveByStage()` in the seeding process: what the gauge reads. */
  countActiveMs?: { median: number; max: number };
  startSeconds?: number;
  error?: string;
}

export interface FleetResult {
  options: FleetOptions;
  redis: string;
  runs: FleetRun[];
  metrics: FleetMetrics[];
}

const log = (text: string) => process.stderr.write(`fleet: ${text}\n`);

export async function benchFleet(options: FleetOptions): Promise<FleetResult> {
  const redis = await openRedis(options.redisUrl);
  const codes: { label: CodeLabel; root: string }[] = [
    ...(options.baseline === undefined
      ? []
      : [{ label: "baseline" as const, root: options.baseline }]),
    { label: "current", root: options.current },
  ];
  const runs: FleetRun[] = [];
  const metrics: FleetMetrics[] = [];
  try {
    let turn = 0;
    for (const n of options.jobs) {
      const configs = [
        ...options.replicas.map((r) => ({ store: "redis" as const, replicas: r })),
        ...(options.sqlite ? [{ store: "sqlite" as const, replicas: 1 }] : []),
      ];
      for (const config of configs) {
        const order = turn++ % 2 === 0 ? codes : [...codes].reverse();
        for (const code of order) {
          log(`${n} jobs, ${config.store} × ${config.replicas}, ${code.label} (${code.root})…`);
          const t0 = performance.now();
          const run = await runFleet(options, redis, code, n, config.store, config.replicas);
          runs.push(run);
          log(`took ${round((performance.now() - t0) / 1000, 0)} s: ${JSON.stringify(run)}`);
        }
      }
    }
    if (options.metricsJobs > 0) {
      for (const code of codes) {
        log(`GET /metrics with ${options.metricsJobs} jobs, ${code.label}…`);
        const result = await timeMetrics(options, redis, code, options.metricsJobs);
        metrics.push(result);
        log(JSON.stringify(result));
      }
    }
  } finally {
    await redis.close();
  }
  return { options, redis: redis.describe, runs, metrics };
}

// ---------------------------------------------------------------------------------------
// One run: seed, start R replicas, measure a window, record sizes, takeover, notice.

async function runFleet(
  options: FleetOptions,
  redis: RedisHandle,
  code: { label: CodeLabel; root: string },
  n: number,
  storeKind: "redis" | "sqlite",
  r: number,
): Promise<FleetRun> {
  const run: FleetRun = { code: code.label, jobs: n, store: storeKind, replicas: r };
  const temp = await makeTempDir("mn-fleet-");
  const emulator = await spawnEmulator({
    EMULATOR_POLLS_TO_COMPLETE: "1000000000",
    EMULATOR_POLL_LOG: "1",
    EMULATOR_REUSE_DOCX: "1",
  });
  const prefix = `fleet-${code.label}-${randomUUID().slice(0, 8)}`;
  const sqlitePath = join(temp.dir, "fleet.sqlite");
  const storeUrl = storeKind === "redis" ? redis.url : `sqlite://${sqlitePath}`;
  const manifestPath = join(temp.dir, "manifest.json");
  const common = {
    SRC_ROOT: code.root,
    STORE_URL: storeUrl,
    KEY_PREFIX: prefix,
    EMULATOR_URL: emulator.baseUrl,
    EMULATOR_KEY: emulator.apiKey,
    MANIFEST: manifestPath,
  };
  const replicas: Replica[] = [];
  const shown = new Map<string, Shown>();
  const onShown = (items: Shown[]) => {
    for (const item of items) if (!shown.has(item[0])) shown.set(item[0], item);
  };
  /** Every replica started, the killed one included (for what they logged). */
  const started: Replica[] = [];
  const startReplica = async (index: number) => {
    const dir = join(temp.dir, `replica-${started.length}`);
    await mkdir(dir);
    const replica = new Replica(
      index,
      {
        ...common,
        TEMP_DIR: dir,
        LEASE_MS: String(options.leaseS * 1000),
        ADMISSION_N: String(n),
        ...launchOf(code.root, options).env,
      },
      launchOf(code.root, options).nodeArgs,
    );
    replica.onShown = onShown;
    started.push(replica);
    return replica;
  };
  try {
    // 1. Seed with the code under test.
    const seeded = await runChild(process.execPath, [benchFile("./fleet-seed.ts")], {
      ...common,
      JOBS: String(n),
      MIX: options.mix.join(","),
      TEMP_DIR: temp.dir,
      WAKE_DELAY_MS: String(options.wakeDelayS * 1000),
    });
    run.seed = lastJson<SeedReport>(seeded.stdout);
    const manifest = JSON.parse(await readFile(manifestPath, "utf8")) as ManifestEntry[];
    log(`seeded ${n} in ${run.seed.submitSeconds} + ${run.seed.writeSeconds} s`);

    // 2. The replicas, started together as in a deploy.
    for (let i = 0; i < r; i++) replicas.push(await startReplica(i));
    const ready = await Promise.all(replicas.map((replica) => replica.ready));
    run.startMs = ready.map((m) => round(m.startMs, 0));
    const readyAt = epochNow();
    const windowAt = Math.max(run.seed.lastWakeAt + 3000, readyAt + options.settleS * 1000);
    await sleep(Math.max(0, windowAt - epochNow()));

    // 3. The measuring window.
    const before = storeKind === "redis" ? await redis.commandCalls() : undefined;
    await Promise.all(replicas.map((replica) => replica.request("window-start")));
    const t0 = performance.now();
    await sleep(options.windowS * 1000);
    const windowReplies = await Promise.all(
      replicas.map((replica) => replica.request("window-end")),
    );
    const seconds = (performance.now() - t0) / 1000;
    const after = storeKind === "redis" ? await redis.commandCalls() : undefined;
    const figures = windowReplies.map((reply) => must(reply.figures));
    run.window = figures;
    run.windowSeconds = round(seconds);
    if (before !== undefined && after !== undefined) {
      const deltas = [...after].map(
        ([name, calls]) => [name, calls - (before.get(name) ?? 0)] as const,
      );
      run.redisCallsPerSecond = round(deltas.reduce((sum, [, d]) => sum + d, 0) / seconds, 0);
      run.redisTop = deltas
        .filter(([, d]) => d > 0)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 4)
        .map(([name, d]) => [name, round(d / seconds, 0)]);
    }
    const sum = (pick: (f: PhaseFigures) => number) => figures.reduce((s, f) => s + pick(f), 0);
    run.storeCallsPerSecond = round(
      sum((f) => Object.values(f.storeCalls).reduce((a, b) => a + b, 0)) / seconds,
      0,
    );
    run.leaseMissesPerSecond = round(sum((f) => f.leaseMisses) / seconds);
    run.pollsPerSecond = round(sum((f) => f.polls) / seconds);
    const polling = manifest.filter((e) => e.stage !== "naming").length;
    run.expectedPollsPerSecond = round(polling / (POLL_MAX_MS / 1000));

    // 4. The largest record per stage, as stored.
    run.records = await recordSizes(storeKind, redis, sqlitePath, prefix, manifest);

    // 5. Takeover: one replica is killed; every job it drove must be polled by another.
    if (r >= 2) {
      const dueKey = `${prefix}:due`;
      const claimableAt = (ids: string[]) => redis.scores(dueKey, ids);
      run.takeover = await takeover(options, emulator, replicas, manifest, claimableAt);
      const victim = replicas[0];
      if (victim !== undefined) victim.onShown = undefined;
      const fresh = await startReplica(0);
      replicas[0] = fresh;
      await fresh.ready;
      await sleep(5000);
    }

    // 6. Notice: a sample of tasks completes while the rest keep running; then every task.
    let sampled = new Set<string>();
    if (options.noticeSample > 0) {
      const measured = await sampleNotice(options, emulator, replicas, manifest, shown);
      run.sampleNotice = measured.result;
      sampled = measured.ids;
    }
    if (options.noticeBurst) {
      run.notice = await notice(options, emulator, replicas, manifest, shown, n, sampled);
    }
  } catch (error) {
    run.error = error instanceof Error ? error.message : String(error);
    log(`run failed: ${run.error}`);
  } finally {
    await Promise.all(started.map((replica) => replica.stop()));
    const logged: Record<string, number> = {};
    for (const replica of started) {
      for (const [message, count] of replica.logged)
        logged[message] = (logged[message] ?? 0) + count;
    }
    for (const replica of started) {
      if (replica.unexpectedExit !== undefined) {
        run.error ??= `replica ${replica.index} ${replica.unexpectedExit}:\n${replica.tail.join("\n")}`;
      }
    }
    run.logged = logged;
    await emulator.stop();
    if (storeKind === "redis") await redis.drop(prefix);
    await temp.cleanup();
  }
  return run;
}

/** SIGKILLs replica 0 and waits until a survivor has polled every task it drove. */
async function takeover(
  options: FleetOptions,
  emulator: EmulatorProcess,
  replicas: Replica[],
  manifest: ManifestEntry[],
  /** When each job becomes claimable, from the store's due queue (null: not known). */
  claimableAt: (jobIds: string[]) => Promise<(number | null)[]>,
): Promise<NonNullable<FleetRun["takeover"]>> {
  // Which replica polled each task last: that one drives it now.
  const snapshots = await Promise.all(replicas.map((replica) => replica.request("snapshot")));
  const latest = new Map<string, { replica: number; at: number }>();
  snapshots.forEach((reply, replica) => {
    for (const [taskId, at] of reply.polls ?? []) {
      const known = latest.get(taskId);
      if (known === undefined || at > known.at) latest.set(taskId, { replica, at });
    }
  });
  const polled = new Set(manifest.flatMap((e) => (e.taskId === undefined ? [] : [e.taskId])));
  const driven = [...latest].filter(([taskId, l]) => l.replica === 0 && polled.has(taskId));
  const jobOfTask = new Map(manifest.map((e) => [e.taskId, e.id]));
  // Read just before the kill: a job the victim holds then is claimable when its lease ends.
  const due = await claimableAt(driven.map(([taskId]) => jobOfTask.get(taskId) ?? ""));
  const victim = must(replicas[0]);
  const killedAt = await victim.kill();
  const deadline = killedAt + options.leaseS * 1000 + 2 * POLL_MAX_MS + 30_000;
  const control = `${new URL(emulator.baseUrl).origin}/_emulator/polls`;
  let firstAfter = new Map<string, number>();
  for (;;) {
    const answer = await fetch(`${control}?since=${Math.floor(killedAt)}`);
    const { polls } = (await answer.json()) as { polls: Record<string, number[]> };
    firstAfter = new Map(
      driven.flatMap(([taskId]) => {
        const at = polls[taskId]?.[0];
        return at === undefined ? [] : [[taskId, at] as const];
      }),
    );
    if (firstAfter.size === driven.length || epochNow() > deadline) break;
    await sleep(500);
  }
  const waits = [...firstAfter.values()].map((at) => Math.max(0, at - killedAt) / 1000);
  const late = driven.flatMap(([taskId], i) => {
    const at = firstAfter.get(taskId);
    const claimable = due[i];
    if (at === undefined || claimable === null || claimable === undefined) return [];
    return [Math.max(0, at - Math.max(killedAt, claimable)) / 1000];
  });
  return {
    victimJobs: driven.length,
    p50Seconds: round(percentile(waits, 50), 1),
    maxSeconds: round(waits.length > 0 ? Math.max(...waits) : Number.NaN, 1),
    ...(late.length === 0
      ? {}
      : {
          afterClaimable: {
            p50Seconds: round(percentile(late, 50), 1),
            maxSeconds: round(Math.max(...late), 1),
          },
        }),
    missing: driven.length - firstAfter.size,
    leaseSeconds: options.leaseS,
  };
}

/**
 * Makes the tasks of `noticeSample` jobs, spread over the polled ones, complete at their
 * next poll while every other task keeps running; times each until its next stage shows.
 * Target: within the poll cap (15 s) + 1 s.
 */
async function sampleNotice(
  options: FleetOptions,
  emulator: EmulatorProcess,
  replicas: Replica[],
  manifest: ManifestEntry[],
  shown: Map<string, Shown>,
): Promise<{ result: NonNullable<FleetRun["sampleNotice"]>; ids: Set<string> }> {
  const polled = manifest.filter((e) => e.stage !== "naming" && e.taskId !== undefined);
  const k = Math.min(options.noticeSample, polled.length);
  const sample = Array.from(
    { length: k },
    (_, i) => polled[Math.floor((i * polled.length) / k)],
  ).filter((e): e is ManifestEntry => e !== undefined);
  await Promise.all(replicas.map((replica) => replica.request("notice-start")));
  const flippedAt = epochNow();
  await emulator.setKnobs({
    completeTaskIds: sample.map((e) => e.taskId ?? ""),
    dialogBytes: options.noticeDialogKiB * 1024,
  });
  const deadline = flippedAt + (POLL_MAX_MS + 45_000);
  while (!sample.every((e) => shown.has(e.id)) && epochNow() < deadline) await sleep(200);
  await sleep(300);
  const replies = await Promise.all(replicas.map((replica) => replica.request("notice-end")));
  await emulator.setKnobs({ completeTaskIds: [] });
  const seen = sample.flatMap((e) => {
    const item = shown.get(e.id);
    return item === undefined ? [] : [(item[2] - flippedAt) / 1000];
  });
  log(`sample notice: ${seen.length} of ${sample.length}, max ${Math.max(...seen).toFixed(1)} s`);
  const result = {
    expected: sample.length,
    noticed: seen.length,
    latency: quantiles(seen, 2),
    figures: replies.map((reply) => must(reply.figures)),
  };
  return { result, ids: new Set(sample.map((e) => e.id)) };
}

/**
 * How a checkout's replicas and app are run: the variables and Node options of its `npm
 * start` (so each code is measured as it runs in production; V8 flags as arguments of
 * `node`, since Node refuses some of them in NODE_OPTIONS), then `BENCH_FLEET_NODE_OPTIONS`
 * as NODE_OPTIONS.
 */
function launchOf(root: string, options: FleetOptions): StartScript {
  const start = startScriptOf(root);
  const extra = options.nodeOptions?.trim();
  return {
    env: extra ? { ...start.env, NODE_OPTIONS: extra } : start.env,
    nodeArgs: start.nodeArgs,
  };
}

/** Makes every task complete at its next poll; times each job until its next stage shows. */
async function notice(
  options: FleetOptions,
  emulator: EmulatorProcess,
  replicas: Replica[],
  manifest: ManifestEntry[],
  shown: Map<string, Shown>,
  n: number,
  sampled: ReadonlySet<string>,
): Promise<NonNullable<FleetRun["notice"]>> {
  const expected = manifest.filter((e) => e.stage !== "naming" && !sampled.has(e.id));
  const beforeFlip: Record<string, number> = {};
  for (const [id, stage] of shown.values()) {
    if (!sampled.has(id)) beforeFlip[stage] = (beforeFlip[stage] ?? 0) + 1;
  }
  const earlier = new Set(shown.keys());
  await Promise.all(replicas.map((replica) => replica.request("notice-start")));
  const flippedAt = epochNow();
  await emulator.setKnobs({ pollsToComplete: 0, dialogBytes: options.noticeDialogKiB * 1024 });
  const deadline = flippedAt + (options.noticeWaitS ?? 90 + n / 50) * 1000;
  const done = () => expected.every((e) => shown.has(e.id) || earlier.has(e.id));
  while (!done() && epochNow() < deadline) await sleep(200);
  // The last batch of a replica may still be on its way (they are sent every 200 ms).
  await sleep(300);
  const replies = await Promise.all(replicas.map((replica) => replica.request("notice-end")));
  const fresh = [...shown.values()].filter(([id]) => !earlier.has(id));
  const latencies = (items: Shown[]) => items.map(([, , at]) => (at - flippedAt) / 1000);
  const byStage: Record<string, Quantiles> = {};
  const transition: Record<string, Quantiles> = {};
  for (const stage of new Set(fresh.map(([, s]) => s))) {
    const items = fresh.filter(([, s]) => s === stage);
    byStage[stage] = quantiles(latencies(items), 2);
    const steps = items.flatMap(([, , , ms]) => (ms === null ? [] : [ms / 1000]));
    transition[stage] = quantiles(steps, 3);
  }
  log(`notice: ${fresh.length} of ${expected.length} (${n} jobs)`);
  return {
    expected: expected.length,
    noticed: fresh.length,
    latency: quantiles(latencies(fresh), 2),
    byStage,
    transition,
    beforeFlip,
    figures: replies.map((reply) => must(reply.figures)),
  };
}

function quantiles(values: number[], digits: number): Quantiles {
  return {
    p50: round(percentile(values, 50), digits),
    p99: round(percentile(values, 99), digits),
    max: round(values.length > 0 ? Math.max(...values) : Number.NaN, digits),
    count: values.length,
  };
}

/** Bytes of the largest stored record per seeded stage (null: not a plain value there). */
async function recordSizes(
  storeKind: "redis" | "sqlite",
  redis: RedisHandle,
  sqlitePath: string,
  prefix: string,
  manifest: ManifestEntry[],
): Promise<Partial<Record<SeedStage, number | null>>> {
  const sizes: Partial<Record<SeedStage, number | null>> = {};
  const note = (stage: SeedStage, bytes: number | null) => {
    const known = sizes[stage];
    if (bytes === null) sizes[stage] = known ?? null;
    else sizes[stage] = Math.max(known ?? 0, bytes);
  };
  if (storeKind === "redis") {
    for (let i = 0; i < manifest.length; i += 500) {
      const batch = manifest.slice(i, i + 500);
      const lengths = await Promise.all(
        batch.map((e) => redis.strLen(`${prefix}:jobs:${e.id}`).catch(() => null)),
      );
      batch.forEach((e, k) => {
        note(e.stage, lengths[k] ?? null);
      });
    }
    return sizes;
  }
  const db = new DatabaseSync(sqlitePath, { readOnly: true });
  try {
    const get = db.prepare("SELECT length(CAST(value AS BLOB)) AS bytes FROM keyv WHERE key = ?");
    for (const e of manifest) {
      const row = get.get(`${prefix}:jobs:${e.id}`) as { bytes: number } | undefined;
      note(e.stage, row === undefined ? null : Number(row.bytes));
    }
  } catch {
    // A store laid out differently: no figure rather than a wrong one.
  } finally {
    db.close();
  }
  return sizes;
}

// ---------------------------------------------------------------------------------------
// GET /metrics of the real app with N active jobs.

async function timeMetrics(
  options: FleetOptions,
  redis: RedisHandle,
  code: { label: CodeLabel; root: string },
  n: number,
): Promise<FleetMetrics> {
  const result: FleetMetrics = { code: code.label, jobs: n, requests: 0 };
  const temp = await makeTempDir("mn-fleet-metrics-");
  const emulator = await spawnEmulator({ EMULATOR_POLLS_TO_COMPLETE: "1000000000" });
  const fake = await spawnFakeSlack();
  // The app writes under the default key prefix: a Redis database of its own keeps it apart.
  const db = await redis.emptyDatabase();
  const storeUrl = `${redis.url}/${db}`;
  let app: Awaited<ReturnType<typeof spawnApp>> | undefined;
  try {
    const seeded = await runChild(process.execPath, [benchFile("./fleet-seed.ts")], {
      SRC_ROOT: code.root,
      STORE_URL: storeUrl,
      KEY_PREFIX: "meeting-notes",
      EMULATOR_URL: emulator.baseUrl,
      EMULATOR_KEY: emulator.apiKey,
      MANIFEST: join(temp.dir, "manifest.json"),
      JOBS: String(n),
      MIX: options.mix.join(","),
      TEMP_DIR: temp.dir,
      WAKE_DELAY_MS: String(options.wakeDelayS * 1000),
      ORIGIN_TEAM: fake.teamId,
      ORIGIN_CHANNEL: "C0BENCH01",
      TIME_COUNT_ACTIVE: "1",
    });
    const seed = lastJson<SeedReport>(seeded.stdout);
    if (seed.countActiveMs !== undefined) result.countActiveMs = seed.countActiveMs;
    const limit = String(Math.min(n, 10_000));
    const started = performance.now();
    app = await spawnApp(
      {
        ...benchAppEnv(fake, emulator, storeUrl),
        MAX_ACTIVE_JOBS_PER_USER: limit,
        MAX_ACTIVE_JOBS_PER_CHANNEL: limit,
        MAX_ACTIVE_JOBS: limit,
        ...launchOf(code.root, options).env,
      },
      join(code.root, "src/main.ts"),
      launchOf(code.root, options).nodeArgs,
    );
    result.startSeconds = round((performance.now() - started) / 1000);
    await sleep(5000);
    const url = `http://127.0.0.1:${app.port}/metrics`;
    const times: number[] = [];
    let text = "";
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      const answer = await fetch(url);
      text = await answer.text();
      times.push(performance.now() - t0);
      if (!answer.ok) throw new Error(`GET /metrics answered ${answer.status}`);
      await sleep(100);
    }
    result.requests = times.length;
    result.medianMs = round(median(times), 1);
    result.maxMs = round(Math.max(...times), 1);
    result.gaugeTotal = [...text.matchAll(/^meeting_notes_jobs\{stage="[a-z]+"\} (\d+)/gm)].reduce(
      (sum, match) => sum + Number(match[1]),
      0,
    );
  } catch (error) {
    result.error = error instanceof Error ? error.message.slice(0, 2000) : String(error);
  } finally {
    await app?.stop();
    await fake.stop();
    await emulator.stop();
    await redis.flushDatabase(db);
    await temp.cleanup();
  }
  return result;
}

// ---------------------------------------------------------------------------------------
// Replica processes.

type ReadyMessage = Extract<FleetReply, { type: "ready" }>;
type ReplyMessage = Extract<FleetReply, { type: "reply" }>;

class Replica {
  readonly index: number;
  readonly child: ChildProcess;
  readonly ready: Promise<ReadyMessage>;
  readonly exited: Promise<void>;
  readonly logged = new Map<string, number>();
  readonly tail: string[] = [];
  onShown: ((items: Shown[]) => void) | undefined;
  /** Set when the process ended without being asked to. */
  unexpectedExit: string | undefined;
  #nextId = 1;
  readonly #waiting = new Map<
    number,
    { resolve: (m: ReplyMessage) => void; reject: (e: Error) => void }
  >();
  #stopping = false;

  constructor(index: number, env: Record<string, string>, nodeArgs: readonly string[]) {
    this.index = index;
    this.child = spawn(process.execPath, [...nodeArgs, benchFile("./fleet-replica.ts")], {
      env: { PATH: process.env.PATH ?? "", ...env },
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    const stderr = this.child.stderr;
    if (stderr !== null) {
      createInterface({ input: stderr }).on("line", (line) => {
        this.tail.push(line.slice(0, 400));
        if (this.tail.length > 20) this.tail.shift();
        // What a replica logs while it stops (steps dropped from its queues) is not news.
        if (this.#stopping) return;
        try {
          const entry = JSON.parse(line) as { level?: number; msg?: string };
          if ((entry.level ?? 0) >= 40) {
            const message = entry.msg ?? "?";
            this.logged.set(message, (this.logged.get(message) ?? 0) + 1);
          }
        } catch {
          this.logged.set("(not JSON)", (this.logged.get("(not JSON)") ?? 0) + 1);
        }
      });
    }
    let resolveReady: (m: ReadyMessage) => void = () => {};
    let rejectReady: (e: Error) => void = () => {};
    this.ready = new Promise((resolve, reject) => {
      resolveReady = resolve;
      rejectReady = reject;
    });
    this.ready.catch(() => undefined);
    this.child.on("message", (message: FleetReply) => {
      if (message.type === "ready") resolveReady(message);
      else if (message.type === "shown") this.onShown?.(message.items);
      else if (message.type === "reply") this.#waiting.get(message.id)?.resolve(message);
      else if (message.type === "fatal") this.tail.push(message.message);
    });
    this.exited = new Promise((resolve) => {
      this.child.once("exit", (code, signal) => {
        if (!this.#stopping) {
          this.unexpectedExit = `exited with ${code ?? signal}`;
          const error = new Error(
            `replica ${index} ${this.unexpectedExit}:\n${this.tail.slice(-8).join("\n")}`,
          );
          rejectReady(error);
          for (const waiter of this.#waiting.values()) waiter.reject(error);
        }
        resolve();
      });
    });
  }

  /** Sends a command; resolves with its reply (rejects if the process dies or 5 min pass). */
  request(cmd: FleetCommand["cmd"]): Promise<ReplyMessage> {
    const id = this.#nextId++;
    return new Promise<ReplyMessage>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`replica ${this.index}: no answer to ${cmd}`)),
        300_000,
      );
      this.#waiting.set(id, {
        resolve: (m) => {
          clearTimeout(timer);
          this.#waiting.delete(id);
          resolve(m);
        },
        reject: (e) => {
          clearTimeout(timer);
          this.#waiting.delete(id);
          reject(e);
        },
      });
      if (this.unexpectedExit !== undefined) {
        reject(new Error(`replica ${this.index} ${this.unexpectedExit}`));
        return;
      }
      this.child.send({ id, cmd } satisfies FleetCommand);
    });
  }

  /** SIGKILL; resolves with the time (epoch ms) the process was gone. */
  async kill(): Promise<number> {
    this.#stopping = true;
    this.child.kill("SIGKILL");
    await this.exited;
    return epochNow();
  }

  /** Asks the replica to stop its runner and close its store; SIGKILL after 15 s. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.#stopping = true;
    const killer = setTimeout(() => this.child.kill("SIGKILL"), 15_000);
    try {
      if (this.child.connected) await this.request("stop").catch(() => undefined);
      await this.exited;
    } finally {
      clearTimeout(killer);
    }
  }
}

// ---------------------------------------------------------------------------------------
// Redis: a private server unless one is named, INFO commandstats, clean-up.

interface RedisHandle {
  url: string;
  describe: string;
  commandCalls(): Promise<Map<string, number>>;
  strLen(key: string): Promise<number>;
  /** Scores of members of a sorted set (null: not in it). */
  scores(key: string, members: string[]): Promise<(number | null)[]>;
  drop(prefix: string): Promise<void>;
  emptyDatabase(): Promise<number>;
  flushDatabase(db: number): Promise<void>;
  close(): Promise<void>;
}

export async function openRedis(url: string | undefined): Promise<RedisHandle> {
  let server: ChildProcess | undefined;
  let target = url;
  if (target === undefined) {
    const port = await freePort();
    const temp = await makeTempDir("mn-fleet-redis-");
    server = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
      { cwd: temp.dir, stdio: ["ignore", "pipe", "inherit"] },
    );
    const child = server;
    await new Promise<void>((resolve, reject) => {
      const lines = createInterface({ input: must(child.stdout) });
      lines.on("line", (line) => {
        if (line.includes("Ready to accept connections")) resolve();
      });
      child.once("error", reject);
      child.once("exit", (code) => reject(new Error(`redis-server exited with ${code}`)));
    });
    target = `redis://127.0.0.1:${port}`;
    const close = temp.cleanup;
    child.once("exit", () => void close());
  }
  const client = createClient({ url: target });
  await client.connect();
  const isPrivate = server !== undefined;
  const used = new Set<number>();
  return {
    url: target,
    describe: isPrivate
      ? "a private `redis-server` started for the benchmark (nothing else sends it commands)"
      : `${target.replace(/\/\/[^@]*@/, "//")} (shared: its commands from other clients are counted too)`,
    async commandCalls() {
      const text = await client.info("commandstats");
      const calls = new Map<string, number>();
      for (const match of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
        calls.set(match[1] ?? "?", Number(match[2]));
      }
      return calls;
    },
    strLen: (key) => client.strLen(key),
    scores: (key, members) =>
      members.length === 0 ? Promise.resolve([]) : client.zmScore(key, members),
    async drop(prefix) {
      if (isPrivate) {
        await client.flushDb();
        return;
      }
      let cursor = "0";
      do {
        const page = await client.scan(cursor, { MATCH: `${prefix}:*`, COUNT: 1000 });
        cursor = String(page.cursor);
        if (page.keys.length > 0) await client.unlink(page.keys);
      } while (cursor !== "0");
    },
    async emptyDatabase() {
      for (let db = 15; db >= 1; db--) {
        if (used.has(db)) continue;
        const probe = client.duplicate();
        await probe.connect();
        try {
          await probe.select(db);
          if ((await probe.dbSize()) === 0) {
            used.add(db);
            return db;
          }
        } finally {
          await probe.close();
        }
      }
      throw new Error(
        "no empty Redis database for the real app (it writes under the default prefix)",
      );
    },
    async flushDatabase(db) {
      const probe = client.duplicate();
      await probe.connect();
      try {
        await probe.select(db);
        // Only keys the benchmark's app wrote: the database was empty before.
        await probe.flushDb();
      } finally {
        await probe.close();
        used.delete(db);
      }
    },
    async close() {
      await client.close();
      if (server !== undefined) {
        const child = server;
        const gone = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await gone;
      }
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

function must<T>(value: T | undefined | null): T {
  if (value === undefined || value === null) throw new Error("missing value");
  return value;
}

/** The checkout this file belongs to. */
export const CURRENT_ROOT = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");
