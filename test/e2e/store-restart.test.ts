import { existsSync, readFileSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { deploymentPaths } from "../../src/deployment-paths.ts";
import { DEFAULT_KEY_PREFIX } from "../../src/store/index.ts";
import { dropRedisKeys } from "../../support/crash/harness.ts";
import { startProcesses } from "../../support/e2e/processes.ts";
import { socketDelivery } from "../../support/e2e/slack-delivery.ts";
import { ALICE, CHANNEL, eventually, SIGNING_SECRET } from "../../support/e2e/stack.ts";
import { fileShareMessageEvent } from "../../support/fake-slack/slack-payloads.ts";
import { sendEvent } from "../../support/fake-slack/slack-request.ts";
import { recordingBytes } from "../../support/fakes/recording-bytes.ts";
import { HAS_REDIS, redisUrl } from "../../support/helpers/redis-url.ts";
import type { AppProcess } from "../../support/helpers/spawn-app.ts";
import { spawnApp } from "../../support/helpers/spawn-app.ts";
import { TcpProxy } from "../../support/helpers/tcp-proxy.ts";

/**
 * An upload acked while the store was down, then the process killed (kill -9) before the
 * store came back: the next start replays the request journal and makes exactly one job.
 * The first process runs the real app with its store behind a switch (a file this test
 * creates and deletes); the second is `src/main.ts` as production runs it.
 */
const FAULTY_MAIN = fileURLToPath(
  new URL("../../support/helpers/faulty-store-main.ts", import.meta.url),
);

type World = Awaited<ReturnType<typeof startProcesses>>;
const running: AppProcess[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((app) => app.stop("SIGKILL")));
});

/** Alice shares a recording in the channel; returns its thread and the event. */
function share(world: World, name: string) {
  const file = world.fake.addFile({ name, bytes: recordingBytes(name), user: ALICE });
  const message = world.fake.shareFile(file, { channel: CHANNEL, user: ALICE });
  const event = fileShareMessageEvent(file, { channel: CHANNEL, user: ALICE, ts: message.ts });
  return { ts: message.ts, event };
}

/**
 * Whether the journal holds a whole entry naming `file`: the file exists from the moment it
 * is opened, before the entry is written and flushed, and a kill then would find it empty.
 */
function keptIn(journal: string, file: string): boolean {
  const text = existsSync(journal) ? readFileSync(journal, "utf8") : "";
  return text.split("\n").some((line) => line.endsWith("}") && line.includes(file));
}

const statuses = (world: World, ts: string) =>
  world.fake.thread(CHANNEL, ts).filter((m) => m.metadata?.event_payload.kind === "status");

describe("an upload acked while SQLite could not write, the process killed meanwhile", () => {
  let world: World;
  beforeAll(async () => {
    world = await startProcesses();
  });
  afterAll(() => world.stop());

  it("becomes one job on the next start", async () => {
    const flag = `${world.temp.dir}/store-down`;
    const journal = `${world.temp.dir}/app.sqlite.pending.jsonl`;
    const first = await spawnApp({ ...world.env, STORE_FAULT_FILE: flag }, FAULTY_MAIN);
    running.push(first);
    await writeFile(flag, "");
    const { ts, event } = share(world, "killed.m4a");
    const sent = await sendEvent(first.url, SIGNING_SECRET, event, { teamId: world.fake.teamId });
    expect(sent.status).toBe(200);
    await eventually(
      () => keptIn(journal, "killed.m4a"),
      (kept) => kept,
      { what: "the upload in the journal" },
    );
    await first.stop("SIGKILL");
    expect(statuses(world, ts)).toHaveLength(0);

    await rm(flag);
    const second = await world.app();
    running.push(second);
    await eventually(
      () => statuses(world, ts),
      (s) => s.length === 1,
      {
        what: "the job's status message",
        context: () => second.lines.slice(-20).join("\n"),
      },
    );
    await eventually(
      () => existsSync(journal),
      (kept) => !kept,
    );
    // The bot's log reaches this process through a pipe, after its status message may have.
    const created = await eventually(
      () => second.lines.filter((line) => line.includes('"msg":"job created"')),
      (lines) => lines.length > 0,
      { what: "the job's creation in the log" },
    );
    expect(created).toHaveLength(1);
    // Two starts of the real process: a ceiling for a loaded machine, as the next test's.
  }, 60_000);
});

describe.skipIf(!HAS_REDIS)("Redis down under Socket Mode, the process killed meanwhile", () => {
  let world: World;
  let proxy: TcpProxy;
  // Read only when the suite runs: collecting a skipped suite still runs its body.
  const redis = new URL(HAS_REDIS ? redisUrl() : "redis://unset");
  // This file's own database: its keys are dropped before and after.
  const database = `redis://${redis.host}/14`;
  beforeAll(async () => {
    world = await startProcesses({ socketMode: true });
    proxy = new TcpProxy({ host: redis.hostname, port: Number(redis.port || 6379) });
    await dropRedisKeys(database, DEFAULT_KEY_PREFIX);
  });
  afterAll(async () => {
    await proxy.stop();
    await dropRedisKeys(database, DEFAULT_KEY_PREFIX);
    await world.stop();
  });

  it("acks the envelope, keeps the upload, and makes one job once Redis and the bot are back", async () => {
    await proxy.start();
    const socket = world.fake.socket;
    if (socket === undefined) throw new Error("no Socket Mode server");
    const env = {
      ...world.env,
      STORE_URL: `redis://127.0.0.1:${proxy.port}/14`,
      // The journal is in the OS temp folder: this test's own.
      TMPDIR: world.temp.dir,
    };
    const first = await spawnApp(env);
    running.push(first);
    await eventually(
      () => socket.openConnections().length,
      (n) => n === 1,
    );
    await proxy.stop();
    const { ts, event } = share(world, "redis-down.m4a");
    const sent = await socketDelivery(socket, world.fake.teamId).event(event);
    expect(sent.acked).toBe(true);
    const journal = deploymentPaths(env.STORE_URL, { tempRoot: world.temp.dir }).journalPath;
    await eventually(
      () => keptIn(journal, "redis-down.m4a"),
      (kept) => kept,
      {
        what: "the upload in the journal",
        context: () => first.lines.slice(-20).join("\n"),
      },
    );
    await first.stop("SIGKILL");

    await proxy.start();
    const second = await spawnApp(env);
    running.push(second);
    await eventually(
      () => statuses(world, ts),
      (s) => s.length === 1,
      {
        // A ceiling for a loaded machine: the replay retries with waits of up to 10 s.
        timeoutMs: 30_000,
        what: "the job's status message",
        context: () => second.lines.slice(-20).join("\n"),
      },
    );
    await eventually(
      () => existsSync(journal),
      (kept) => !kept,
    );
    const created = await eventually(
      () => second.lines.filter((line) => line.includes('"msg":"job created"')),
      (lines) => lines.length > 0,
      { what: "the job's creation in the log" },
    );
    expect(created).toHaveLength(1);
  }, 60_000);
});
