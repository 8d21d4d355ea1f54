import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import autocannon from "autocannon";
import { Pool } from "undici";
import { signSlackRequest } from "../fake-slack/slack-request.ts";
import { spawnApp } from "../helpers/spawn-app.ts";
import { spawnEmulator } from "../helpers/spawn-emulator.ts";
import { stopChild } from "../helpers/stop-child.ts";
import { makeTempDir } from "../helpers/temp-files.ts";
import { benchFile, median, percentile, round, sleep, spawnFakeSlack } from "./support.ts";

export type AckKind = "event" | "command";
/** `autocannon` as briefed (bursts, see `load`); `paced` an even open-loop rate. */
export type AckLoad = "autocannon" | "paced";

export interface AckSide {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Responses per second actually achieved over the run. */
  achievedRps: number;
  /** Non-2xx answers, connection errors and timeouts together. */
  errors: number;
  samples: number;
  /** The app process's CPU time (user + system) per request over the run, µs. */
  cpuUsPerRequest: number;
}

export interface AckResult {
  kind: AckKind;
  load: AckLoad;
  rate: number;
  bare: AckSide;
  bot: AckSide;
  /** bot p99 ÷ bare p99. */
  p99Ratio: number;
  rounds: number;
  secondsPerRound: number;
}

const USER = "U0BENCH01";
const CHANNEL = "C0BENCH01";
const CONNECTIONS = 10;

interface AppUnderTest {
  url: string;
  pid: number;
  stop(): Promise<unknown>;
}

/**
 * Benchmark 2. The bot (`node src/main.ts`, HTTP mode, SQLite) and a bare Bolt app with no-op
 * listeners each run in a process of their own against one fake Slack (own process); the
 * load generator in this process replays one signed request per kind at a fixed rate, and
 * every response time is kept (µs resolution) to compute p50/p99. Each point is a few short
 * rounds in which the two apps take turns, so a busy moment hits both.
 */
export async function benchAckLatency(
  rates: number[],
  seconds = 3,
  kinds: readonly AckKind[] = ["event", "command"],
  loads: readonly AckLoad[] = ["autocannon", "paced"],
  roundsPerPoint = 3,
): Promise<AckResult[]> {
  const temp = await makeTempDir("mn-bench-ack-");
  const secret = randomBytes(16).toString("hex");
  const fake = await spawnFakeSlack();
  const emulator = await spawnEmulator();
  // BENCH_CPU_PROF=DIR: both apps write a CPU profile there when they stop.
  const profile: Record<string, string> = process.env.BENCH_CPU_PROF
    ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${process.env.BENCH_CPU_PROF}` }
    : {};
  const apps: AppUnderTest[] = [];
  const results: AckResult[] = [];
  try {
    const bare = await startBare({
      ...profile,
      SLACK_BOT_TOKEN: fake.botToken,
      SLACK_SIGNING_SECRET: secret,
      SLACK_API_URL: fake.apiUrl,
    });
    apps.push(bare);
    // BENCH_APP_MAIN=PATH: measure another build of the bot (e.g. a copy with a proposed fix).
    const bot = await spawnBot(process.env.BENCH_APP_MAIN, {
      ...profile,
      SLACK_BOT_TOKEN: fake.botToken,
      SLACK_SIGNING_SECRET: secret,
      SLACK_API_URL: fake.apiUrl,
      NOTE_TAKER_BASE_URL: emulator.baseUrl,
      NOTE_TAKER_API_KEY: emulator.apiKey,
      STORE_URL: `sqlite://${temp.dir}/app.sqlite`,
      LOG_LEVEL: "info",
    });
    apps.push(bot);
    // A fresh request (and signature) each time: the bot refuses a signature it has seen.
    const request = (kind: AckKind) => () => signedRequest(kind, secret, fake);
    // Warm-up: JIT, Bolt's auth.test, the bot's users.info cache, keep-alive sockets.
    for (const kind of kinds) {
      for (const app of [bare, bot]) await load(app.url, request(kind), 100, 3);
    }
    let point = 0;
    for (const mode of loads) {
      for (const kind of kinds) {
        for (const rate of rates) {
          // Short rounds, the two apps taking turns (ABBA…), so a noisy moment on the machine
          // falls on both: per app, p99 is the median of its rounds' p99s.
          const rounds = new Map<AppUnderTest, AckSide[]>([
            [bare, []],
            [bot, []],
          ]);
          for (let r = 0; r < roundsPerPoint; r++) {
            const order = (point + r) % 2 === 0 ? [bare, bot] : [bot, bare];
            for (const app of order) {
              const cpuBefore = cpuMsOf(app.pid);
              const side = await (mode === "paced" ? paced : load)(
                app.url,
                request(kind),
                rate,
                seconds,
              );
              side.cpuUsPerRequest = ((cpuMsOf(app.pid) - cpuBefore) * 1000) / side.samples;
              rounds.get(app)?.push(side);
              await sleep(250);
            }
          }
          point++;
          const b = combine(rounds.get(bare) ?? []);
          const o = combine(rounds.get(bot) ?? []);
          results.push({
            kind,
            load: mode,
            rate,
            bare: b,
            bot: o,
            p99Ratio: round2(o.p99Ms / b.p99Ms),
            rounds: roundsPerPoint,
            secondsPerRound: seconds,
          });
          process.stderr.write(`ack-latency: ${JSON.stringify(results.at(-1))}\n`);
        }
      }
    }
    return results;
  } finally {
    for (const app of apps.reverse()) await app.stop();
    await emulator.stop();
    await fake.stop();
    await temp.cleanup();
  }
}

const round2 = (value: number) => round(value, 2);

/** One app's rounds of a point: p50/p99 the medians of the rounds', the rest pooled. */
function combine(sides: AckSide[]): AckSide {
  const samples = sides.reduce((sum, side) => sum + side.samples, 0);
  return {
    p50Ms: round2(median(sides.map((side) => side.p50Ms))),
    p99Ms: round2(median(sides.map((side) => side.p99Ms))),
    maxMs: Math.max(...sides.map((side) => side.maxMs)),
    achievedRps: round(median(sides.map((side) => side.achievedRps)), 0),
    errors: sides.reduce((sum, side) => sum + side.errors, 0),
    samples,
    cpuUsPerRequest: round(
      sides.reduce((sum, side) => sum + side.cpuUsPerRequest * side.samples, 0) / samples,
      0,
    ),
  };
}

/** User + system CPU time of a process so far, ms (Linux `/proc/PID/stat`, 10 ms ticks). */
function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Fields 14 and 15 of the file (utime, stime) are 11 and 12 after the name.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

interface SignedRequest {
  headers: Record<string, string>;
  body: string;
}

/** One request of the kind, signed now: a new event id or trigger id, so a new signature. */
function signedRequest(
  kind: AckKind,
  secret: string,
  fake: { teamId: string; botUserId: string; responseUrl: string },
): SignedRequest {
  const ts = `${Math.floor(Date.now() / 1000)}.000100`;
  const body =
    kind === "event"
      ? JSON.stringify({
          token: "fake-verification-token",
          team_id: fake.teamId,
          api_app_id: "A0FAKEAPP",
          event: {
            type: "message",
            channel: CHANNEL,
            user: USER,
            text: "hello, no files here",
            ts,
            event_ts: ts,
            channel_type: "channel",
          },
          type: "event_callback",
          event_id: `Ev0${randomBytes(5).toString("hex").toUpperCase()}`,
          event_time: Math.floor(Date.now() / 1000),
          authorizations: [
            {
              enterprise_id: null,
              team_id: fake.teamId,
              user_id: fake.botUserId,
              is_bot: true,
              is_enterprise_install: false,
            },
          ],
          is_ext_shared_channel: false,
        })
      : new URLSearchParams({
          token: "fake-verification-token",
          team_id: fake.teamId,
          team_domain: "fake-workspace",
          channel_id: CHANNEL,
          channel_name: "bench",
          user_id: USER,
          user_name: "bench",
          command: "/meeting-notes",
          text: "help",
          api_app_id: "A0FAKEAPP",
          is_enterprise_install: "false",
          response_url: fake.responseUrl,
          trigger_id: `${Date.now()}.1.${randomBytes(16).toString("hex")}`,
        }).toString();
  return {
    body,
    headers: {
      "content-type": kind === "event" ? "application/json" : "application/x-www-form-urlencoded",
      ...signSlackRequest(secret, body),
    },
  };
}

/**
 * autocannon at `rate` requests/s over `CONNECTIONS` keep-alive connections for `seconds`.
 * Its rate limit is per connection and per second: each connection sends its share back to
 * back and then waits for the next second, so the load arrives in bursts of ten.
 */
function load(url: string, request: () => SignedRequest, rate: number, seconds: number) {
  return new Promise<AckSide>((resolve, reject) => {
    const latencies: number[] = [];
    const instance = autocannon(
      {
        url,
        method: "POST",
        // Each request built and signed as it is sent (the HMAC costs the generator ~µs).
        requests: [
          {
            setupRequest: (req) => {
              const next = request();
              return { ...req, headers: { ...req.headers, ...next.headers }, body: next.body };
            },
          },
        ],
        connections: CONNECTIONS,
        overallRate: rate,
        duration: seconds,
      },
      (error, result) => {
        if (error) return reject(error);
        resolve({
          p50Ms: round(percentile(latencies, 50), 2),
          p99Ms: round(percentile(latencies, 99), 2),
          maxMs: round(Math.max(...latencies), 1),
          achievedRps: round(latencies.length / seconds, 0),
          errors: result.non2xx + result.errors + result.timeouts,
          samples: latencies.length,
          cpuUsPerRequest: 0,
        });
      },
    );
    // autocannon emits (client, statusCode, bytes, responseTimeMs); its typings omit `client`.
    (instance as unknown as NodeJS.EventEmitter).on(
      "response",
      (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
        if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
      },
    );
  });
}

/**
 * A paced open-loop load: request i is due at start + i/rate and sent on a free one of
 * `CONNECTIONS` keep-alive connections; its latency counts from when it was due, so a queue
 * in front of the app is not hidden (no coordinated omission).
 */
async function paced(
  url: string,
  request: () => SignedRequest,
  rate: number,
  seconds: number,
): Promise<AckSide> {
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections: CONNECTIONS, pipelining: 1 });
  const latencies: number[] = [];
  let errors = 0;
  const total = Math.round(rate * seconds);
  const started = performance.now();
  const inFlight: Promise<void>[] = [];
  let sent = 0;
  while (sent < total) {
    const now = performance.now();
    for (; sent < total && started + (sent * 1000) / rate <= now; sent++) {
      const due = started + (sent * 1000) / rate;
      const next = request();
      inFlight.push(
        pool
          .request({
            path: target.pathname,
            method: "POST",
            headers: next.headers,
            body: next.body,
          })
          .then(async (response) => {
            await response.body.dump();
            if (response.statusCode >= 200 && response.statusCode < 300) {
              latencies.push(performance.now() - due);
            } else errors++;
          })
          .catch(() => {
            errors++;
          }),
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await Promise.all(inFlight);
  const elapsed = (performance.now() - started) / 1000;
  await pool.close();
  return {
    p50Ms: round(percentile(latencies, 50), 2),
    p99Ms: round(percentile(latencies, 99), 2),
    maxMs: round(Math.max(...latencies), 1),
    achievedRps: round(latencies.length / elapsed, 0),
    errors,
    samples: latencies.length,
    cpuUsPerRequest: 0,
  };
}

/** The bot as `spawnApp` starts it, or another entry point given by path. */
async function spawnBot(
  main: string | undefined,
  env: Record<string, string>,
): Promise<AppUnderTest> {
  const app = await spawnApp(env, main || undefined);
  return { url: app.url, pid: app.child.pid ?? 0, stop: () => app.stop() };
}

/** The bare Bolt app in its own process. */
async function startBare(env: Record<string, string>): Promise<AppUnderTest> {
  const child: ChildProcess = spawn(process.execPath, [benchFile("./bare-bolt-app.ts")], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    if (child.stdout === null) return reject(new Error("no stdout"));
    const lines = createInterface({ input: child.stdout });
    lines.on("line", (line) => {
      if (line.startsWith('{"port"')) resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once("exit", (code) => reject(new Error(`bare Bolt app exited with ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/slack/events`,
    pid: child.pid ?? 0,
    stop: () => stopChild(child),
  };
}
