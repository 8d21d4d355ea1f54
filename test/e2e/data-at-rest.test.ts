import { readdir, stat } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deploymentPaths } from "../../src/deployment-paths.ts";
import { ACTIONS } from "../../src/slack/ids.ts";
import { startProcesses } from "../../support/e2e/processes.ts";
import {
  ALICE,
  buttonOn,
  CHANNEL,
  eventually,
  markdownOf,
  regenerateWithNames,
  SIGNING_SECRET,
  type Stack,
  shareRecording,
  startStack,
} from "../../support/e2e/stack.ts";
import {
  HOST,
  nameSpeakers,
  publishedUninstall,
  secretsOf,
  shareInHostChannel,
} from "../../support/e2e/uninstall-kit.ts";
import { fileShareMessageEvent } from "../../support/fake-slack/slack-payloads.ts";
import { sendEnvelope, sendEvent } from "../../support/fake-slack/slack-request.ts";
import { recordingBytes } from "../../support/fakes/recording-bytes.ts";
import { redisEntries } from "../../support/helpers/redis-entries.ts";
import {
  HAS_REDIS_SERVER,
  type PrivateRedis,
  startPrivateRedis,
} from "../../support/helpers/redis-server.ts";
import { occurrencesInStoreFiles } from "../../support/helpers/store-file-text.ts";

const mode = async (path: string) => (await stat(path)).mode & 0o777;

/**
 * The files under the temp folder, by path relative to it: in the folder itself or in a
 * job's folder within it. None when the folder is not there (yet).
 */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => relative(dir, join(e.parentPath, e.name)));
}

describe("data at rest", () => {
  let world: Awaited<ReturnType<typeof startProcesses>>;
  beforeAll(async () => {
    world = await startProcesses();
  });
  afterAll(() => world.stop());

  it("keeps the store, the temp folder and recordings private to the app's user", async () => {
    // The Note Service is down: the downloaded recording waits on disk for a retry.
    world.emulator.knobs.faults = [{ match: "POST /audio2dialog", status: 503, count: 1000 }];
    const app = await world.app();
    const file = world.fake.addFile({
      name: "private.m4a",
      bytes: recordingBytes("private.m4a", 4096, 1),
      user: ALICE,
    });
    const message = world.fake.shareFile(file, { channel: CHANNEL, user: ALICE });
    const event = fileShareMessageEvent(file, { channel: CHANNEL, user: ALICE, ts: message.ts });
    await sendEvent(app.url, SIGNING_SECRET, event, { teamId: world.fake.teamId });
    const tmp = deploymentPaths(world.env.STORE_URL).tempDir;
    const recordings = await eventually(
      () => filesUnder(tmp),
      (names) => names.some((name) => name.endsWith(".m4a")),
    );
    expect(await mode(tmp)).toBe(0o700);
    for (const name of recordings) {
      expect(await mode(join(tmp, name)), name).toBe(0o600);
      // A job's own folder, when the files have one, is as private as the temp folder.
      if (dirname(name) !== ".") expect(await mode(join(tmp, dirname(name))), name).toBe(0o700);
    }
    // The store's files (its temp folder beside it checked above).
    const storeFiles = (await readdir(world.temp.dir)).filter(
      (n) => n.startsWith("app.sqlite") && join(world.temp.dir, n) !== tmp,
    );
    for (const name of storeFiles) {
      expect(await mode(join(world.temp.dir, name)), name).toBe(0o600);
    }
    // Killed: a graceful stop would wait (up to 10 s) for the upload retrying the 503s.
    await app.stop("SIGKILL");
    world.emulator.knobs.faults = [];
  });
});

/** Where the app keeps its store in the journey below, and how to read what it holds. */
interface StoreUnderTest {
  name: string;
  /** STORE_URL, made ready (emptied) first; none: the stack's own SQLite file. */
  url?(): Promise<string>;
  /** How often each text occurs in what the store holds, as a copy of it would show. */
  occurrences(stack: Stack, texts: readonly string[]): Promise<Record<string, number>>;
  /** Keys of data (jobs, blobs, settings, templates, indexes, sets) left in the store. */
  dataKeys(stack: Stack): Promise<string[]>;
  /** Removes what the journey left, once the stack has stopped. */
  cleanup?(): Promise<void>;
}

/**
 * A redis-server of its own: the app has no key prefix setting, so the journey needs a
 * whole Redis, and a database of the shared one is shared with every other run of it.
 */
let ownRedis: PrivateRedis | undefined;
const ownDb = () => ownRedis?.url ?? "";
const DATA_KEY = /^meeting-notes:(jobs|blobs|settings|templates|index|set):/;

const stores: StoreUnderTest[] = [
  {
    name: "SQLite",
    async occurrences(stack, texts) {
      const found = await occurrencesInStoreFiles(`${stack.temp.dir}/e2e.sqlite`, texts);
      expect(Object.keys(found)).toEqual(
        expect.arrayContaining(["e2e.sqlite", "e2e.sqlite-wal", "e2e.sqlite-shm"]),
      );
      return Object.fromEntries(texts.map((text) => [text, sum(found, text)]));
    },
    async dataKeys(stack) {
      // A second connection, as SQLite allows in WAL mode; closed at once.
      const db = new DatabaseSync(`${stack.temp.dir}/e2e.sqlite`, { readOnly: true });
      const rows = db.prepare("SELECT key FROM keyv").all() as { key: string }[];
      db.close();
      return rows.map((row) => row.key).filter((key) => DATA_KEY.test(key));
    },
  },
];
if (HAS_REDIS_SERVER) {
  stores.push({
    name: "Redis",
    async url() {
      ownRedis = await startPrivateRedis();
      return ownDb();
    },
    async occurrences(_stack, texts) {
      const entries = await redisEntries(ownDb(), "*");
      return Object.fromEntries(
        texts.map((text) => [text, entries.filter((e) => e.includes(text)).length]),
      );
    },
    async dataKeys() {
      const entries = await redisEntries(ownDb(), "*");
      return entries.map((e) => e.split(" = ")[0] ?? "").filter((key) => DATA_KEY.test(key));
    },
    cleanup: () => ownRedis?.stop() ?? Promise.resolve(),
  });
}

describe.each(stores)("an install that removes the app ($name store)", (store) => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack(store.url === undefined ? {} : { STORE_URL: await store.url() });
  });
  afterAll(async () => {
    await stack.stop();
    await store.cleanup?.();
  });

  it("forgets what it filed under every team id, down to what the store's files hold", async () => {
    const service = stack.app.jobs.service;
    const services = stack.app.jobs;
    const own = stack.fake.teamId;
    const teams = [own, HOST.teamId];
    for (const teamId of teams) {
      await services.settings.set(teamId, CHANNEL, {
        autoTranscribe: true,
        contextText: secretsOf(teamId).context,
      });
    }
    // Under each team id, a job done with its transcript and the names typed for it.
    stack.emulator.knobs.dialogText = `We agreed on ${secretsOf(own).transcript} today.`;
    const ownTs = (await shareRecording(stack, "own-team.m4a")).ts;
    const ownJob = await nameSpeakers(stack, ownTs, secretsOf(own).speaker);
    // Renamed: the first note, with the first name, is left in a blob no record names.
    const regenerate = await buttonOn(stack, ownTs, ACTIONS.regenerate);
    await regenerateWithNames(stack, regenerate, { speaker_1: "Renamed Person", speaker_2: "Lan" });
    await eventually(
      async () => ({ job: await stack.job(ownJob), notes: markdownOf(stack.thread(ownTs)) }),
      ({ job, notes }) => job?.stage === "done" && notes.includes("Renamed Person"),
    );
    stack.emulator.knobs.dialogText = `We agreed on ${secretsOf(HOST.teamId).transcript} today.`;
    const hostTs = await shareInHostChannel(stack, "host-team.m4a");
    const hostJob = await nameSpeakers(stack, hostTs, secretsOf(HOST.teamId).speaker);
    // A Slack Connect channel's job is the install's, whoever hosts the channel; data kept
    // under the host's id (settings above) is forgotten all the same.
    expect((await stack.job(hostJob))?.origin.teamId).toBe(own);
    // And one held in transcription, its recording on disk.
    stack.emulator.knobs.faults = [{ match: "POST /audio2dialog", status: 503, count: 1000 }];
    await shareInHostChannel(stack, "in-flight.m4a");
    const tmp = `${stack.temp.dir}/tmp`;
    await eventually(
      () => filesUnder(tmp),
      (names) => names.some((name) => name.endsWith(".m4a")),
    );
    const jobs = [
      ...(await service.listByChannel(own, CHANNEL)),
      ...(await service.listByChannel(HOST.teamId, CHANNEL)),
    ];
    expect(jobs.map((job) => job.id)).toEqual(expect.arrayContaining([ownJob, hostJob]));
    expect(jobs).toHaveLength(3);
    const secrets = teams.flatMap((teamId) => Object.values(secretsOf(teamId)));
    // Each one is there to be found: the search below would see it.
    const before = await store.occurrences(stack, secrets);
    for (const secret of secrets) expect(before[secret], secret).toBeGreaterThan(0);

    // User tokens alone being revoked is not the install leaving: nothing happens.
    await sendEvent(
      stack.url,
      SIGNING_SECRET,
      { type: "tokens_revoked", tokens: { oauth: ["U0SOMEONE"] } },
      { teamId: own },
    );
    expect(await service.listByChannel(own, CHANNEL)).toHaveLength(jobs.length);

    // app_uninstalled as Slack's events reference publishes it, naming the install's team.
    const sent = await sendEnvelope(stack.url, SIGNING_SECRET, publishedUninstall(own));
    expect(sent.status).toBe(200);
    await eventually(
      () => stack.logs.some((line) => line.includes('"msg":"workspace data deleted"')),
      (done) => done,
    );
    for (const job of jobs) expect(await service.get(job.id)).toBeUndefined();
    for (const teamId of teams) {
      expect(await service.listByChannel(teamId, CHANNEL)).toEqual([]);
      expect(await services.settings.get(teamId, CHANNEL)).toEqual({
        autoTranscribe: true,
        canvas: true,
        transcript: true,
        mentions: false,
        review: false,
      });
      expect(await stack.app.store.listMembers(`team:${teamId}`)).toEqual([]);
    }
    expect(await stack.app.store.listMembers("teams")).toEqual([]);
    expect(await stack.app.store.listActive()).toEqual([]);
    await eventually(
      () => filesUnder(tmp),
      (names) => names.filter((n) => !n.endsWith(".part")).length === 0,
    );
    // The held job made no call after the removal: once no timer or step is left for it,
    // none can come.
    const submissions = stack.emulator.stats.audioSubmissions.length;
    await eventually(
      () => stack.app.jobs.runner.stats(),
      (queues) => queues.scheduled === 0 && queues.running === 0,
    );
    await stack.settled();
    expect(stack.emulator.stats.audioSubmissions.length).toBe(submissions);

    // What a copy of the store would show: no planted text anywhere in it.
    const after = await store.occurrences(stack, secrets);
    for (const secret of secrets) expect(after[secret], secret).toBe(0);
    expect(await store.dataKeys(stack)).toEqual([]);
    stack.emulator.knobs.faults = [];
  });
});

/** How often `text` occurs over every file of an {@link occurrencesInStoreFiles} answer. */
function sum(found: Record<string, Record<string, number>>, text: string): number {
  return Object.values(found).reduce((n, counts) => n + (counts[text] ?? 0), 0);
}
