import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type createJobs, type Job, jobLeaseKey, type StatusMode } from "../../src/jobs/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { recordingBytes } from "../../support/fakes/recording-bytes.ts";
import { RecordingGateway } from "../../support/fakes/recording-gateway.ts";
import { ScriptedNoteTaker } from "../../support/fakes/scripted-note-taker.ts";
import { eventually } from "../../support/helpers/eventually.ts";
import { origin, source, testJobs, waitForStage } from "../../support/helpers/jobs-kit.ts";
import { makeTempDir } from "../../support/helpers/temp-files.ts";

/*
 * A person's command is recorded the moment it arrives and applied as soon as the job can
 * take it: never refused because a step holds the job. Here the step that holds it is the
 * naming prompt's draw, which Slack never answers (its answers lost, its budget spent).
 */

/** A gateway whose naming prompts (or other draws) hang until `answer()`; it notes each mode. */
class SilentPrompts extends RecordingGateway {
  readonly modes: { stage: Job["stage"]; mode: StatusMode | undefined }[] = [];
  hangs: (job: Job, mode: StatusMode | undefined) => boolean = (_job, mode) => mode === "required";
  #answer: () => void = () => {};
  #answered = new Promise<void>((resolve) => {
    this.#answer = resolve;
  });

  override async showStatus(job: Job, mode?: StatusMode): Promise<string> {
    this.modes.push({ stage: job.stage, mode });
    if (this.hangs(job, mode)) await this.#answered;
    return super.showStatus(job);
  }

  answer(): void {
    this.#answer();
  }
}

const names = [{ speakerId: "speaker_1", name: "Lan Anh" }];

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let sourcePath: string;
let client: ScriptedNoteTaker;
let gateway: SilentPrompts;
const opened: ReturnType<typeof createJobs>[] = [];
const stores: Store[] = [];

beforeEach(async () => {
  temp = await makeTempDir();
  sourcePath = await temp.file("rec.m4a", recordingBytes("rec.m4a"));
  client = new ScriptedNoteTaker();
  gateway = new SilentPrompts({ sourcePath });
});
afterEach(async () => {
  gateway.answer();
  for (const jobs of opened.splice(0)) await jobs.runner.stop(100);
  for (const store of stores.splice(0)) await store.close();
  await temp.cleanup();
});

/** A job layer (a replica, or the process after a restart) over `store`. */
function replica(store: Store, slack = gateway) {
  const jobs = testJobs({ store, client, gateway: slack, tempDir: temp.dir });
  opened.push(jobs);
  return jobs;
}

async function open(url = "memory://"): Promise<Store> {
  const store = await openStore(url);
  stores.push(store);
  return store;
}

/** A job whose naming step is under way, holding the job while its prompt hangs. */
async function heldInNaming(store: Store, jobs: ReturnType<typeof createJobs>): Promise<string> {
  const started = await jobs.service.start({ origin: origin(), source: source(), options: {} });
  if (started.status !== "created") throw new Error(started.status);
  const id = started.job.id;
  await eventually(
    () => gateway.modes.some((m) => m.stage === "naming" && m.mode === "required"),
    (drawing) => drawing,
    { what: "the naming prompt, hanging" },
  );
  expect(await store.acquireLease(jobLeaseKey(id), 1_000)).toBeUndefined();
  return id;
}

describe("a person's command while a step holds the job", () => {
  it("is recorded, and the step gives the job up at once in this process", async () => {
    const store = await open();
    const jobs = replica(store);
    await jobs.runner.start();
    const id = await heldInNaming(store, jobs);

    const result = await jobs.service.submitNames(id, names);
    expect(result).toMatchObject({ ok: true });
    await waitForStage((jobId) => jobs.service.get(jobId), id, "writing", "delivering", "done");
    await jobs.runner.settled();
    // What the names did is drawn as the person's draw, while the prompt still hangs.
    expect(gateway.modes).toContainEqual({ stage: "writing", mode: "person" });
    expect(await store.get("meta", `cancel:${id}`)).toBeUndefined();
  });

  it("is recorded on another replica, and applied at the holder's next checkpoint", async () => {
    const store = await open();
    const holder = replica(store);
    await holder.runner.start();
    const id = await heldInNaming(store, holder);
    // Another replica, whose runner never runs: it can only record the command.
    const other = replica(store);

    expect(await other.service.skipNaming(id)).toMatchObject({ ok: true });
    expect(await store.get("meta", `cancel:${id}`)).toEqual([{ type: "naming_skipped" }]);
    // The holder's step looks for requests while its draw waits, and gives the job up.
    const moved = await waitForStage(
      (jobId) => holder.service.get(jobId),
      id,
      "writing",
      "delivering",
      "done",
    );
    expect(moved?.stage).not.toBe("naming");
    await eventually(
      () => store.get("meta", `cancel:${id}`),
      (left) => left === undefined,
    );
  });

  it("judges each command against the job as the ones before it leave it", async () => {
    const store = await open();
    const jobs = replica(store);
    await jobs.runner.start();
    const id = await heldInNaming(store, jobs);
    await jobs.runner.stop(100);
    // A lease of a replica that stopped answering: nothing applies what is recorded.
    const dead = await store.acquireLease(jobLeaseKey(id), 60_000);
    expect(dead).toBeDefined();

    expect(await jobs.service.submitNames(id, names)).toMatchObject({ ok: true });
    // The first names win: the job is no longer waiting for names, whoever asks.
    expect(await jobs.service.submitNames(id, [])).toEqual({ ok: false, reason: "wrong_stage" });
    expect(await jobs.service.skipNaming(id)).toEqual({ ok: false, reason: "wrong_stage" });
    // A cancel can still come after them: the job will be writing.
    expect(await jobs.service.cancel(id, "U2")).toMatchObject({ ok: true });
    expect(((await store.get<unknown[]>("meta", `cancel:${id}`)) ?? []).map(typeOf)).toEqual([
      "names_given",
      "canceled",
    ]);
  });

  it("is applied by the next process after a restart, once the dead holder's lease lapses", async () => {
    const url = `sqlite://${temp.dir}/jobs.sqlite`;
    const store = await open(url);
    const before = replica(store);
    await before.runner.start();
    const id = await heldInNaming(store, before);
    await before.runner.stop(100);
    // The process dies holding the job: its lease lapses on its own.
    await store.acquireLease(jobLeaseKey(id), 500);
    expect(await before.service.submitNames(id, names)).toMatchObject({ ok: true });
    expect((await before.service.get(id))?.stage).toBe("naming");
    await store.close();
    stores.splice(stores.indexOf(store), 1);

    gateway.answer();
    const reopened = await open(url);
    const after = replica(reopened);
    await after.runner.start();
    const job = await waitForStage(
      (jobId) => after.service.get(jobId),
      id,
      "writing",
      "delivering",
      "done",
    );
    expect(job?.stage).not.toBe("naming");
    await after.runner.settled();
    expect(client.submittedDialogs.at(-1)?.speakerMap).toEqual([
      { speaker_id: "speaker_1", name: "Lan Anh" },
    ]);
  });
});

const typeOf = (request: unknown) => (request as { type: string }).type;

describe("a Retry as the failure is being drawn", () => {
  it("is recorded, and applied once the failed step lets the job go", async () => {
    const store = await open();
    client.noteScript = [{ status: "failed", message: "model overloaded" }];
    gateway.hangs = (job) => job.stage === "failed";
    const jobs = replica(store);
    await jobs.runner.start();
    const started = await jobs.service.start({ origin: origin(), source: source(), options: {} });
    if (started.status !== "created") throw new Error(started.status);
    const id = started.job.id;
    await waitForStage((jobId) => jobs.service.get(jobId), id, "naming");
    expect(await jobs.service.skipNaming(id)).toMatchObject({ ok: true });
    // The step that failed the job still holds it, drawing the failure (Slack silent).
    await eventually(
      () => gateway.modes.some((m) => m.stage === "failed"),
      (drawing) => drawing,
      { what: "the failure, being drawn" },
    );
    client.noteScript = [
      {
        status: "completed",
        result: { markdown: "# Notes\n\nText", docxUrl: "https://r.test/n" },
      },
    ];
    expect(await jobs.service.retry(id)).toMatchObject({ ok: true });
    const moved = await waitForStage((jobId) => jobs.service.get(jobId), id, "delivering", "done");
    expect(moved?.stage).not.toBe("failed");
    expect(client.calls.submitDialog).toBe(2);
  });
});
