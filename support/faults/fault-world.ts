/**
 * The fault suite's world: the real bot (`node src/main.ts`) as a child process in HTTP
 * mode, and in this process the fake Slack and the Note Service emulator, each behind a
 * proxy the test switches (refuse connections, answer 503, hang, forward and lose the
 * answer); Redis, when a test asks for it, is a private `redis-server` it can pause, kill
 * and start again. `/readyz` is polled throughout.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename } from "node:path";
import { fileURLToPath } from "node:url";
import { deploymentPaths } from "../../src/deployment-paths.ts";
import { ALICE, BOB, CHANNEL, SIGNING_SECRET, TEST_RATE_SCALE } from "../e2e/stack.ts";
import { createEmulator, type Emulator } from "../emulator/create-emulator.ts";
import { HTTP_MANIFEST, SOCKET_MANIFEST } from "../fake-slack/app-manifest.ts";
import { createFakeSlack, type FakeSlack } from "../fake-slack/create-fake-slack.ts";
import { HttpFaultProxy } from "../helpers/http-fault-proxy.ts";
import { startPrivateRedis } from "../helpers/redis-server.ts";
import { type AppProcess, spawnApp } from "../helpers/spawn-app.ts";
import { makeTempDir } from "../helpers/temp-files.ts";
import { ReadyzWatch } from "./readyz-watch.ts";

const FAULTY_MAIN = fileURLToPath(new URL("../helpers/faulty-store-main.ts", import.meta.url));
const SHIFT_CLOCK = fileURLToPath(new URL("../helpers/shift-clock.ts", import.meta.url));

export { ALICE, BOB, CHANNEL };

export interface WorldOptions {
  /** The bot's store: SQLite in the world's folder (default), or a private Redis. */
  store?: "sqlite" | "redis";
  /**
   * The bot's store behind a switch this test turns (`setStoreFault`): every call fails, or
   * only writes — a SQLite file that cannot be written, without filling a real disk.
   */
  storeSwitch?: boolean;
  /** The bot's wall clock can be moved (`shiftClock`); its monotonic clock never is. */
  movableClock?: boolean;
  /**
   * A tmpfs of `bytes` of its own, so the test can fill it up, under the bot's temp folder
   * (where recordings are downloaded) or under its SQLite store's folder (the file, its
   * request journal and the temp folder beside it, as `data/` holds them); needs the right
   * to mount (root).
   */
  tmpfs?: { bytes: number; under: "temp" | "store" };
  /**
   * Socket Mode instead of HTTP: the bot connects to the fake's Socket Mode server (through
   * `apps.connections.open` behind the proxy), and uploads and clicks are envelopes it acks.
   */
  socketMode?: boolean;
  /** Environment over the world's (limits, poll pace). */
  env?: Record<string, string>;
}

export type FaultWorld = Awaited<ReturnType<typeof startFaultWorld>>;

export async function startFaultWorld(options: WorldOptions = {}) {
  const temp = await makeTempDir("mn-fault-");
  const slackProxy = new HttpFaultProxy();
  await slackProxy.start();
  const socketMode = options.socketMode === true;
  const fake: FakeSlack = await createFakeSlack({
    knobs: { rateScale: TEST_RATE_SCALE },
    publicOrigin: slackProxy.origin,
    ...(socketMode ? { socketMode: true, manifest: SOCKET_MANIFEST } : { manifest: HTTP_MANIFEST }),
  });
  slackProxy.target = fake.origin;
  // Recordings take a few hundred ms to transcribe and write: the faults, not the service's
  // pace, make the test's time.
  const emulator: Emulator = await createEmulator({
    knobs: { audioDurationMs: 300, noteDurationMs: 300, pollsToComplete: 1 },
  });
  const apiOrigin = new URL(emulator.baseUrl).origin;
  const noteProxy = new HttpFaultProxy(apiOrigin);
  await noteProxy.start();
  fake.addUser({ id: ALICE, name: "alice", real_name: "Alice Nguyen", locale: "en-US" });
  fake.addUser({ id: BOB, name: "bob", real_name: "Bob Tran", locale: "en-US" });
  fake.addChannel({ id: CHANNEL, name: "weekly-sync" });
  const redis =
    options.store === "redis"
      ? await startPrivateRedis({ persistIn: await mkdirIn(temp.dir, "redis") })
      : undefined;
  const storeDir = options.tmpfs?.under === "store" ? `${temp.dir}/store` : temp.dir;
  if (options.tmpfs?.under === "store") await mountTmpfs(storeDir, options.tmpfs.bytes);
  const storeFlag = `${temp.dir}/store-fault`;
  const clockFile = `${temp.dir}/clock-offset`;
  const env: Record<string, string> = {
    SLACK_BOT_TOKEN: fake.botToken,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    ...(fake.socket === undefined ? {} : { SLACK_APP_TOKEN: fake.socket.appToken }),
    SLACK_API_URL: `${slackProxy.origin}/api/`,
    NOTE_TAKER_BASE_URL: emulator.baseUrl.replace(apiOrigin, noteProxy.origin),
    NOTE_TAKER_API_KEY: emulator.apiKey,
    STORE_URL: redis === undefined ? `sqlite://${storeDir}/app.sqlite` : redis.url,
    // With Redis the temp folder and the request journal are in the OS's: this world's.
    TMPDIR: temp.dir,
    POLL_INITIAL_MS: "200",
    POLL_MAX_MS: "1000",
    LOG_LEVEL: "debug",
    SLACK_RATE_SHARE: String(TEST_RATE_SCALE),
    ...(options.storeSwitch === true ? { STORE_FAULT_FILE: storeFlag } : {}),
    ...(options.movableClock === true ? { SHIFT_CLOCK_FILE: clockFile } : {}),
    ...options.env,
  };
  // The bot's own temp folder, as it derives it from its store (with Redis, in TMPDIR).
  const tempFolder = deploymentPaths(env.STORE_URL ?? "", { tempRoot: temp.dir }).tempDir;
  if (options.tmpfs?.under === "temp") await mountTmpfs(tempFolder, options.tmpfs.bytes);
  const readyz = new ReadyzWatch();
  const bots: AppProcess[] = [];
  let bot: AppProcess | undefined;

  const world = {
    /** The switch file of `storeSwitch` (see support/helpers/faulty-store-main.ts). */
    storeFlag,
    /** The offset file of `movableClock` (see support/helpers/shift-clock.ts). */
    clockFile,
    temp,
    fake,
    emulator,
    slackProxy,
    noteProxy,
    redis,
    env,
    readyz,
    /** The running bot; throws when there is none. */
    get bot(): AppProcess {
      if (bot === undefined) throw new Error("no bot is running");
      return bot;
    },
    /** The running bot's `/slack/events`; undefined while none runs (Slack's call then fails). */
    botUrl: (): string | undefined => bot?.url,
    /** Where the bot's temp folder is (recordings being downloaded). */
    tempFolder,
    /** The folder of the SQLite store (its file and request journal). */
    storeDir,
    /** Every line every bot process of this world wrote, in order of their starts. */
    lines: (): string[] => bots.flatMap((b) => b.lines),
    /** Starts a bot (after the last one stopped); readiness is watched from then on. */
    async start(): Promise<AppProcess> {
      const main = options.storeSwitch === true ? FAULTY_MAIN : undefined;
      const nodeArgs = options.movableClock === true ? ["--import", SHIFT_CLOCK] : [];
      bot = await spawnApp(env, main, nodeArgs);
      bots.push(bot);
      readyz.watch(`http://127.0.0.1:${bot.port}`);
      return bot;
    },
    /** Stops the bot with `signal`; resolves with its exit code once it is gone. */
    async stopBot(signal: NodeJS.Signals = "SIGTERM"): Promise<number | null> {
      readyz.watch(undefined);
      const code = await world.bot.stop(signal);
      bot = undefined;
      return code;
    },
    async stop(): Promise<void> {
      readyz.stop();
      // FAULT_LOG_DIR keeps the bots' logs of a run to read afterwards.
      const logDir = process.env.FAULT_LOG_DIR;
      if (logDir !== undefined) {
        await mkdir(logDir, { recursive: true });
        await writeFile(`${logDir}/${basename(temp.dir)}.log`, world.lines().join("\n"));
      }
      await Promise.all(bots.map((b) => b.stop("SIGKILL")));
      redis?.resume();
      await redis?.stop();
      await Promise.all([slackProxy.stop(), noteProxy.stop()]);
      await emulator.close();
      await fake.close();
      if (options.tmpfs !== undefined) {
        spawnSync("umount", [options.tmpfs.under === "store" ? storeDir : tempFolder]);
      }
      await temp.cleanup();
    },
  };
  return world;
}

/** Whether this process may mount a tmpfs (root on Linux): the disk fault needs it. */
export const CAN_MOUNT_TMPFS = (() => {
  const probe = mkdtempSync(`${tmpdir()}/mn-mount-probe-`);
  try {
    const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", probe]);
    if (mounted.status !== 0) return false;
    spawnSync("umount", [probe]);
    return true;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
})();

async function mountTmpfs(dir: string, bytes: number): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const mounted = spawnSync("mount", [
    "-t",
    "tmpfs",
    "-o",
    `size=${bytes},mode=0700`,
    "tmpfs",
    dir,
  ]);
  if (mounted.status !== 0) throw new Error(`cannot mount a tmpfs: ${mounted.stderr}`);
}

async function mkdirIn(dir: string, name: string): Promise<string> {
  const path = `${dir}/${name}`;
  await mkdir(path, { recursive: true });
  return path;
}
