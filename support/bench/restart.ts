/**
 * Benchmark 4, restart at scale: N jobs polling a Note Service task (the emulator's, never
 * finishing) are written straight into a store by the repository of the code under test
 * (`fleet-seed.ts`), all overdue — the bot was down longer than the 15 s poll cap, as
 * across a deploy — and the real app (`node src/main.ts`, HTTP mode, fake Slack) of each
 * checkout is started over them, taking turns, on SQLite and on a private Redis. See
 * `renderRestart` for what each figure is; `run.ts` for the knobs.
 */
import { appendFile, readFile } from "node:fs/promises";
import { loadavg } from "node:os";
import { join } from "node:path";
import { createFakeSlack } from "../fake-slack/create-fake-slack.ts";
import { spawnApp } from "../helpers/spawn-app.ts";
import { spawnEmulator } from "../helpers/spawn-emulator.ts";
import { makeTempDir } from "../helpers/temp-files.ts";
import { CURRENT_ROOT, openRedis } from "./fleet.ts";
import { benchAppEnv, benchFile, lastJson, median, round, runChild, sleep } from "./support.ts";

export type RestartStore = "sqlite" | "redis";
export type RestartCode = "baseline" | "current";

export interface RestartOptions {
  jobs: number;
  runs: number;
  stores: RestartStore[];
  /** A checkout of the code before this change, measured beside this one (unset: none). */
  baseline: string | undefined;
  /** How long each started app is watched (s): the spread window and some. */
  windowS: number;
}

/** Medians over the runs of one store × code. */
export interface RestartRow {
  store: RestartStore;
  code: RestartCode;
  runs: number;
  /** Spawn → the `meeting-notes started` line, logged once `runner.start()` has returned. */
  scheduledMs: number;
  /** Spawn → the first Note Service poll the emulator saw. */
  firstStepMs: number;
  /** Spawn → the last of the N jobs' first polls (every job stepping). */
  allSteppedMs: number;
  /** Jobs polled at least once within the window (the least of the runs). */
  polled: number;
  /** Note Service polls in the busiest whole second after spawn. */
  pollsBusiest: number;
  /** Slack Web API calls (fake Slack) in the busiest whole second after spawn. */
  slackBusiest: number;
  /** The app's peak RSS (VmHWM) at the end of the window. */
  hwmMiB: number;
  /** Spawn → the `serving /healthz…` line: Node, imports, the store opened, the app built. */
  servingMs: number;
  /** Spawn → the `runner claiming` line (the pump started), where the code logs it. */
  claimingMs: number | undefined;
  /** Where the start's time went, as the code logs it (`startupMs`, runner parts), ms. */
  parts: Record<string, number>;
  /** The machine's 1-minute load average at each run's spawn: the least and the most. */
  load: [number, number];
}

export interface RestartResult {
  options: RestartOptions;
  rows: RestartRow[];
}

interface RunFigures {
  load: number;
  servingMs: number;
  claimingMs: number | undefined;
  parts: Record<string, number>;
  scheduledMs: number;
  firstStepMs: number;
  allSteppedMs: number;
  polled: number;
  pollsBusiest: number;
  slackBusiest: number;
  hwmMiB: number;
}

export async function benchRestart(options: RestartOptions): Promise<RestartResult> {
  const temp = await makeTempDir("mn-bench-restart-");
  // Tasks never finish; every poll is kept (time and task) for the figures.
  const emulator = await spawnEmulator({
    EMULATOR_POLLS_TO_COMPLETE: "1000000000",
    EMULATOR_POLL_LOG: "1",
  });
  const control = new URL(emulator.baseUrl).origin;
  const fake = await createFakeSlack();
  // The channels `fleet-seed.ts` puts the jobs in (one each).
  for (let i = 0; i < options.jobs; i++) {
    fake.addChannel({ id: `C${String(i).padStart(7, "0")}`, name: `restart-${i}` });
  }
  const redis = options.stores.includes("redis") ? await openRedis(undefined) : undefined;
  const db = redis === undefined ? 0 : await redis.emptyDatabase();
  const codes: [RestartCode, string][] = [["current", CURRENT_ROOT]];
  if (options.baseline !== undefined) codes.unshift(["baseline", options.baseline]);
  const figures = new Map<string, RunFigures[]>();
  try {
    let turn = 0;
    for (let run = 0; run < options.runs; run++) {
      for (const store of options.stores) {
        // Taking turns: which code goes first alternates from one pair to the next.
        const order = turn++ % 2 === 0 ? codes : [...codes].reverse();
        for (const [code, root] of order) {
          const storeUrl =
            store === "sqlite"
              ? `sqlite://${temp.dir}/${code}-${run}.sqlite`
              : `${redis?.url}/${db}`;
          if (store === "redis") await redis?.flushDatabase(db);
          await fetch(`${control}/_emulator/reset`, { method: "POST" });
          // The reset restores the default knobs: tasks that complete on their second poll.
          // Here they run on, so every step is a poll and no job waits for a person.
          await fetch(`${control}/_emulator/knobs`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ pollsToComplete: 1_000_000_000 }),
          });
          await seed(root, storeUrl, options.jobs, temp.dir, emulator, fake.teamId);
          const manifest = join(temp.dir, "manifest.json");
          const figure = await startOver(root, storeUrl, manifest, options, {
            fake,
            emulator,
            control,
          });
          process.stderr.write(
            `restart ${store} ${code} run ${run + 1}: ${JSON.stringify(figure)}\n`,
          );
          const key = `${store}/${code}`;
          figures.set(key, [...(figures.get(key) ?? []), figure]);
        }
      }
    }
    const rows: RestartRow[] = [];
    for (const store of options.stores) {
      for (const [code] of codes) {
        const runs = figures.get(`${store}/${code}`) ?? [];
        const med = (pick: (f: RunFigures) => number, digits = 0) =>
          round(median(runs.map(pick)), digits);
        rows.push({
          store,
          code,
          runs: runs.length,
          scheduledMs: med((f) => f.scheduledMs),
          firstStepMs: med((f) => f.firstStepMs),
          allSteppedMs: med((f) => f.allSteppedMs),
          polled: Math.min(...runs.map((f) => f.polled)),
          pollsBusiest: med((f) => f.pollsBusiest),
          slackBusiest: med((f) => f.slackBusiest),
          hwmMiB: med((f) => f.hwmMiB),
          servingMs: med((f) => f.servingMs),
          claimingMs: runs.every((f) => f.claimingMs !== undefined)
            ? med((f) => f.claimingMs ?? 0)
            : undefined,
          parts: medianParts(runs.map((f) => f.parts)),
          load: [
            round(Math.min(...runs.map((f) => f.load))),
            round(Math.max(...runs.map((f) => f.load))),
          ],
        });
      }
    }
    return { options, rows };
  } finally {
    await emulator.stop();
    await fake.close();
    await redis?.close();
    await temp.cleanup();
  }
}

/** N transcribing jobs whose polls fell due 5–20 s ago, written by the code at `root`. */
async function seed(
  root: string,
  storeUrl: string,
  jobs: number,
  dir: string,
  emulator: { baseUrl: string; apiKey: string },
  teamId: string,
): Promise<void> {
  const child = await runChild(process.execPath, [benchFile("./fleet-seed.ts")], {
    SRC_ROOT: root,
    STORE_URL: storeUrl,
    KEY_PREFIX: "meeting-notes",
    EMULATOR_URL: emulator.baseUrl,
    EMULATOR_KEY: emulator.apiKey,
    JOBS: String(jobs),
    MIX: "100,0,0",
    MANIFEST: join(dir, "manifest.json"),
    TEMP_DIR: dir,
    // Each poll fell due 5–20 s before its record was written (and the seed's own time
    // more by the restart): the bot was down longer than the 15 s poll cap.
    WAKE_DELAY_MS: String(-20_000),
    // Each job in a channel of its own, its status message posted before the restart.
    ORIGIN_TEAM: teamId,
    // A store a bot has run on: its due queue already marked as holding every active job,
    // so the start measured is a restart's, not a first start's over an older store.
    QUEUED_ONCE: "1",
  });
  lastJson(child.stdout);
}

/**
 * Starts the app of `root` over the seeded store and watches it for the window: the
 * figures of one run.
 */
async function startOver(
  root: string,
  storeUrl: string,
  manifestPath: string,
  options: RestartOptions,
  on: {
    fake: Awaited<ReturnType<typeof createFakeSlack>>;
    emulator: { baseUrl: string; apiKey: string };
    control: string;
  },
): Promise<RunFigures> {
  const manifest = JSON.parse(await readFile(manifestPath, "utf8")) as { taskId?: string }[];
  const callsBefore = on.fake.calls.length;
  const load = loadavg()[0] ?? Number.NaN;
  const spawnedAt = Date.now();
  const app = await spawnApp(
    benchAppEnv(on.fake, on.emulator, storeUrl),
    join(root, "src/main.ts"),
  );
  const scheduledMs = Date.now() - spawnedAt;
  try {
    await sleep(options.windowS * 1000);
    const logs = process.env.BENCH_RESTART_LOGS;
    if (logs !== undefined && logs !== "") {
      await appendFile(join(logs, "restart-app.log"), `${app.lines.join("\n")}\n`);
    }
    const startUp = startUpOf(app.lines, spawnedAt);
    const status = await readFile(`/proc/${app.child.pid}/status`, "utf8");
    const hwmKiB = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
    const answer = await fetch(`${on.control}/_emulator/polls?since=${spawnedAt}`);
    const { polls } = (await answer.json()) as { polls: Record<string, number[]> };
    const firsts = firstsOf(manifest, polls);
    const all = Object.values(polls).flat();
    // The timeline, for the log: first polls and all polls in each second after spawn.
    if (process.env.BENCH_RESTART_TIMELINE === "1") {
      const line = (times: number[]) => perSecond(times, spawnedAt).join(" ");
      process.stderr.write(`  first polls/s: ${line(firstsOf(manifest, polls))}\n`);
      process.stderr.write(`  all polls/s:   ${line(all)}\n`);
    }
    return {
      load,
      ...startUp,
      scheduledMs,
      firstStepMs: Math.min(...all) - spawnedAt,
      allSteppedMs: Math.max(...firsts) - spawnedAt,
      polled: firsts.length,
      pollsBusiest: busiest(all, spawnedAt),
      slackBusiest: busiest(
        on.fake.calls.slice(callsBefore).map((c) => c.at),
        spawnedAt,
      ),
      hwmMiB: round(hwmKiB / 1024, 0),
    };
  } finally {
    // With thousands of jobs a SIGTERM may take long to drain (not what is measured here).
    const exited = app.stop();
    const killed = sleep(STOP_GRACE_MS).then(() => app.stop("SIGKILL"));
    await Promise.race([exited, killed]);
  }
}

/**
 * From the app's own log lines (pino's `time`, ms since the epoch): spawn → serving, spawn →
 * the pump started, and the parts the code logs ("meeting-notes started"'s `startupMs`, the
 * runner's "runner prepared" and "runner claiming" `ms`) — the baseline logs none of those.
 */
function startUpOf(
  lines: readonly string[],
  spawnedAt: number,
): Pick<RunFigures, "servingMs" | "claimingMs" | "parts"> {
  const logged = lines.flatMap((line) => {
    if (!line.startsWith("{")) return [];
    try {
      return [
        JSON.parse(line) as { msg?: string; time?: number; ms?: unknown; startupMs?: unknown },
      ];
    } catch {
      return [];
    }
  });
  const find = (msg: string) => logged.find((l) => l.msg === msg);
  const since = (msg: string) => {
    const time = find(msg)?.time;
    return time === undefined ? undefined : time - spawnedAt;
  };
  const parts: Record<string, number> = {};
  const add = (prefix: string, values: unknown) => {
    if (typeof values !== "object" || values === null) return;
    for (const [k, v] of Object.entries(values)) if (typeof v === "number") parts[prefix + k] = v;
  };
  add("", find("meeting-notes started")?.startupMs);
  add("runner.", find("runner prepared")?.ms);
  add("runner.", find("runner claiming")?.ms);
  return {
    servingMs: since("serving /healthz and /readyz; connecting to Slack") ?? Number.NaN,
    claimingMs: since("runner claiming"),
    parts,
  };
}

/** Each part's median over the runs that logged it. */
function medianParts(runs: readonly Record<string, number>[]): Record<string, number> {
  const names = [...new Set(runs.flatMap((r) => Object.keys(r)))];
  return Object.fromEntries(
    names.map((name) => [
      name,
      round(median(runs.flatMap((r) => (r[name] === undefined ? [] : [r[name]]))), 0),
    ]),
  );
}

/** How long an app gets to exit after SIGTERM before it is killed. */
const STOP_GRACE_MS = 15_000;

/** Each seeded job's first poll since the app's spawn, if it had one. */
function firstsOf(manifest: { taskId?: string }[], polls: Record<string, number[]>): number[] {
  return manifest.flatMap((e) => {
    const at = e.taskId === undefined ? undefined : polls[e.taskId]?.[0];
    return at === undefined ? [] : [at];
  });
}

/** Events in each whole second since `from`. */
function perSecond(times: readonly number[], from: number): number[] {
  const seconds: number[] = [];
  for (const t of times) {
    const k = Math.max(0, Math.floor((t - from) / 1000));
    seconds[k] = (seconds[k] ?? 0) + 1;
  }
  return Array.from(seconds, (n) => n ?? 0);
}

/** The most events in one whole second since `from`. */
function busiest(times: readonly number[], from: number): number {
  return Math.max(0, ...perSecond(times, from));
}
