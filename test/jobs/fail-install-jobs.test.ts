import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type createJobs, jobLeaseKey } from "../../src/jobs/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { recordingBytes } from "../../support/fakes/recording-bytes.ts";
import { RecordingGateway } from "../../support/fakes/recording-gateway.ts";
import { ScriptedNoteTaker } from "../../support/fakes/scripted-note-taker.ts";
import { eventually } from "../../support/helpers/eventually.ts";
import { origin, source, testJobs, waitForStage } from "../../support/helpers/jobs-kit.ts";
import { makeTempDir } from "../../support/helpers/temp-files.ts";

/**
 * An install that lost its tokens stops every job of its own: the one waiting for names,
 * the one waiting on the Note Service, the one a step of another replica holds (told through
 * its stop request). Another install's job goes on. No status is drawn: there is no token.
 */
const REVOKED = "TT0REVOKED";
const OTHER = "TT0OTHER";

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let store: Store;
let client: ScriptedNoteTaker;
let gateway: RecordingGateway;
let jobs: ReturnType<typeof createJobs>;

beforeEach(async () => {
  temp = await makeTempDir();
  const sourcePath = await temp.file("rec.m4a", recordingBytes("rec.m4a"));
  store = await openStore("memory://");
  client = new ScriptedNoteTaker();
  gateway = new RecordingGateway({ sourcePath });
  jobs = testJobs({ store, client, gateway, tempDir: temp.dir });
  await jobs.runner.start();
});
afterEach(async () => {
  await jobs.runner.stop(100);
  await store.close();
  await temp.cleanup();
});

async function start(install: string, filename: string): Promise<string> {
  const result = await jobs.service.start({
    origin: origin({ install, teamId: install.slice(1) }),
    source: source({ filename }),
    options: {},
  });
  if (result.status !== "created") throw new Error(result.status);
  return result.job.id;
}
const get = (id: string) => jobs.service.get(id);
const statusStages = (id: string) => gateway.of(id, "status").map((s) => s.stage);

describe("Installs.failJobs", () => {
  it("fails the install's jobs waiting for a person and on the Note Service, and no other install's", async () => {
    const naming = await start(REVOKED, "names.m4a");
    await waitForStage(get, naming, "naming");
    client.audioScript = [{ status: "running", rawStatus: "processing", progress: null }];
    const polling = await start(REVOKED, "polls.m4a");
    const other = await start(OTHER, "other.m4a");
    await waitForStage(get, polling, "transcribing");
    await waitForStage(get, other, "transcribing");

    expect(await jobs.installs.failJobs(REVOKED, "install_unavailable")).toBe(2);
    for (const id of [naming, polling]) {
      // The polling one may be in a step right now: it ends at that step's checkpoint.
      expect(await waitForStage(get, id, "failed")).toMatchObject({
        stage: "failed",
        failure: { code: "install_unavailable" },
        retryable: true,
      });
      await jobs.runner.settled();
      expect(statusStages(id)).not.toContain("failed");
    }
    expect((await get(other))?.stage).toBe("transcribing");
  });

  it("asks a job another replica's step holds to stop, and it fails once that lease is gone", async () => {
    const naming = await start(REVOKED, "held.m4a");
    await waitForStage(get, naming, "naming");
    // Another replica's step holds the job (a lease taken as the runner takes it), and lets
    // it lapse: the job is claimed once it has.
    const token = await store.acquireLease(jobLeaseKey(naming), 300);
    if (token === undefined) throw new Error("the lease was held");

    expect(await jobs.installs.failJobs(REVOKED, "install_unavailable")).toBe(1);
    expect((await get(naming))?.stage).toBe("naming");
    const failed = await waitForStage(get, naming, "failed");
    expect(failed).toMatchObject({ failure: { code: "install_unavailable" }, retryable: true });
    await jobs.runner.settled();
    expect(statusStages(naming)).not.toContain("failed");
  });

  it("is waited for by `settled`: a stop started in the background has failed every job by then", async () => {
    const first = await start(REVOKED, "first.m4a");
    const second = await start(REVOKED, "second.m4a");
    for (const id of [first, second]) await waitForStage(get, id, "naming");
    // The stop is held at the second job's lease, as a slow store would hold it.
    let reached = false;
    let open = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const acquireLease = store.acquireLease.bind(store);
    store.acquireLease = async (key, ttlMs) => {
      if (key === jobLeaseKey(second)) {
        reached = true;
        await gate;
      }
      return acquireLease(key, ttlMs);
    };
    // As the app calls it when a token turns out revoked: not awaited.
    void jobs.installs.failJobs(REVOKED, "install_unavailable");
    let settled = false;
    const settling = jobs.installs.settled().then(() => {
      settled = true;
    });
    await eventually(
      () => reached,
      (r) => r,
      { what: "the stop to reach the second job" },
    );
    expect(settled).toBe(false);
    open();
    await settling;
    for (const id of [first, second]) expect((await get(id))?.stage).toBe("failed");
  });
});
