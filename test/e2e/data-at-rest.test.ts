import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTIONS } from "../../src/slack/ids.ts";
import { recordingBytes } from "../fakes/recording-bytes.ts";
import { fileShareMessageEvent } from "../fakes/slack/slack-payloads.ts";
import { sendEvent } from "../fakes/slack/slack-request.ts";
import { startProcesses } from "./processes.ts";
import {
  ALICE,
  buttonValue,
  CHANNEL,
  eventually,
  SIGNING_SECRET,
  type Stack,
  shareRecording,
  startStack,
  statusMessage,
} from "./stack.ts";

const mode = async (path: string) => (await stat(path)).mode & 0o777;

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
    const tmp = join(world.temp.dir, "tmp");
    const recordings = await eventually(
      () => readdir(tmp).catch(() => [] as string[]),
      (names) => names.some((name) => name.endsWith(".m4a")),
    );
    expect(await mode(tmp)).toBe(0o700);
    for (const name of recordings) expect(await mode(join(tmp, name)), name).toBe(0o600);
    for (const name of (await readdir(world.temp.dir)).filter((n) => n.startsWith("app.sqlite"))) {
      expect(await mode(join(world.temp.dir, name)), name).toBe(0o600);
    }
    // Killed: a graceful stop would wait (up to 10 s) for the upload retrying the 503s.
    await app.stop("SIGKILL");
    world.emulator.knobs.faults = [];
  });
});

describe("a workspace that removes the app", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.stop());

  const upload = async (name: string) => (await shareRecording(stack, name)).ts;

  it("stops its jobs and deletes its jobs, settings and temp files on app_uninstalled", async () => {
    const service = stack.app.jobs.service;
    const team = stack.fake.teamId;
    // One job waits for names, one is held in transcription with its recording on disk.
    const naming = await upload("kept-waiting.m4a");
    await eventually(
      () => statusMessage(stack.thread(naming)),
      (m) => buttonValue(m, ACTIONS.nameSpeakers) !== undefined,
    );
    stack.emulator.knobs.faults = [{ match: "POST /audio2dialog", status: 503, count: 1000 }];
    await upload("in-flight.m4a");
    const tmp = `${stack.temp.dir}/tmp`;
    await eventually(
      () => readdir(tmp),
      (names) => names.some((name) => name.endsWith(".m4a")),
    );
    await service.setChannelSettings(team, CHANNEL, { autoTranscribe: true, languageHint: "vi" });
    const jobs = await service.listByChannel(team, CHANNEL);
    expect(jobs).toHaveLength(2);

    // User tokens alone being revoked is not the workspace leaving: nothing happens.
    await sendEvent(
      stack.url,
      SIGNING_SECRET,
      { type: "tokens_revoked", tokens: { oauth: ["U0SOMEONE"] } },
      { teamId: team },
    );
    expect(await service.listByChannel(team, CHANNEL)).toHaveLength(2);

    const sent = await sendEvent(
      stack.url,
      SIGNING_SECRET,
      { type: "app_uninstalled" },
      {
        teamId: team,
      },
    );
    expect(sent.status).toBe(200);
    await eventually(
      () => stack.logs.some((line) => line.includes('"msg":"workspace data deleted"')),
      (done) => done,
    );
    for (const job of jobs) expect(await service.get(job.id)).toBeUndefined();
    expect(await service.listByChannel(team, CHANNEL)).toEqual([]);
    expect(await service.getChannelSettings(team, CHANNEL)).toEqual({
      autoTranscribe: true,
      canvas: true,
      transcript: true,
      mentions: false,
    });
    expect(await stack.app.store.listActive()).toEqual([]);
    expect(await stack.app.store.listMembers(`team:${team}`)).toEqual([]);
    await eventually(
      () => readdir(tmp),
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
    stack.emulator.knobs.faults = [];
  });
});
