import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  Admission,
  createServices,
  defaultAdmissionLimits,
  type Job,
  type JobIn,
  JobRepository,
  type Services,
  SlackPortError,
  type StepCompletion,
  transition,
  WORKFLOW_STEPS_SET,
  type WorkflowPort,
  WorkflowSteps,
} from "../../src/jobs/index.ts";
import { inline } from "../../src/jobs/model/stored.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { origin, source } from "../../support/helpers/jobs-kit.ts";

/** A Slack side that records each completion and answers as a test scripts it. */
class ScriptedWorkflow implements WorkflowPort {
  readonly calls: { kind: "succeed" | "fail"; job: Job }[] = [];
  /** Answers to give, in turn; then "completed". An Error is thrown. */
  readonly answers: (StepCompletion | Error)[] = [];
  /** Held until released: a completion under way. */
  gate: Promise<void> | undefined;

  async succeed(job: JobIn<"done">) {
    return this.#answer("succeed", job);
  }
  async fail(job: JobIn<"failed" | "canceled" | "discarded">) {
    return this.#answer("fail", job);
  }
  async #answer(kind: "succeed" | "fail", job: Job): Promise<StepCompletion> {
    this.calls.push({ kind, job });
    await this.gate;
    const answer = this.answers.shift() ?? "completed";
    if (answer instanceof Error) throw answer;
    return answer;
  }
}

const logger = pino({ level: "silent" });
let store: Store;
let repo: JobRepository;
let services: Services;
let port: ScriptedWorkflow;
const steps: WorkflowSteps[] = [];

function replica(): WorkflowSteps {
  const admission = new Admission({
    store,
    limits: defaultAdmissionLimits,
    logger,
    stillHolds: async () => true,
  });
  const s = new WorkflowSteps({ repo, store, admission, port, logger, now: () => store.now() });
  steps.push(s);
  return s;
}

beforeEach(async () => {
  store = await openStore("memory://");
  repo = new JobRepository(store, { retentionMs: 60_000, logger });
  port = new ScriptedWorkflow();
  services = createServices({
    repo,
    store,
    admission: new Admission({
      store,
      limits: defaultAdmissionLimits,
      logger,
      stillHolds: async () => true,
    }),
    logger,
    retentionMs: 60_000,
    runner: { kick: () => {}, abort: () => {}, settle: () => {}, discard: async () => {} },
  });
});
afterEach(async () => {
  await Promise.all(steps.splice(0).map((s) => s.stop()));
  await store.close();
});

const stepOrigin = origin({ kind: "workflow", executionId: "Fx0STEP1" });

async function startStep(o = stepOrigin): Promise<Job> {
  const result = await services.service.start({
    origin: o,
    source: source({ fileId: `F${Math.random().toString(36).slice(2, 8)}` }),
    options: {},
  });
  if (result.status !== "created") throw new Error(result.status);
  return result.job;
}

/** The job as its delivery leaves it. */
async function deliver(job: Job): Promise<JobIn<"done">> {
  const { wakeAt: _, ...rest } = job;
  const note = { dialog: inline([]), speakers: [], quotes: inline({}), speakerMap: [] };
  const done: JobIn<"done"> = {
    ...rest,
    stage: "done",
    note,
    markdown: inline("# Notes"),
    postedParts: 1,
    delivery: 1,
    docxFileId: "F0DOCX",
    finishedAt: store.now(),
  };
  await repo.save(done, job);
  return done;
}

const pending = () => store.listMembers(WORKFLOW_STEPS_SET);

describe("Workflow Builder steps, completed when their jobs end", () => {
  it("notes a step's job as it starts, and only a step's", async () => {
    const job = await startStep();
    await startStep(origin());
    expect(await pending()).toEqual([job.id]);
    // Running: nothing to complete yet, and it stays noted.
    await replica().sweep();
    expect(port.calls).toEqual([]);
    expect(await pending()).toEqual([job.id]);
  });

  it("fails the step of a canceled job, once, and records it", async () => {
    const s = replica();
    const job = await startStep();
    const canceled = await services.service.cancel(job.id, "U1");
    if (!canceled.ok) throw new Error(canceled.reason);
    s.observe(canceled.job);
    await s.settled();
    expect(port.calls.map((c) => [c.kind, c.job.stage])).toEqual([["fail", "canceled"]]);
    expect((await repo.get(job.id))?.stepCompleted).toMatchObject({ outcome: "error" });
    expect(await pending()).toEqual([]);
    // Told again, or swept: nothing more goes to Slack.
    s.observe(canceled.job);
    await s.sweep();
    await s.settled();
    expect(port.calls).toHaveLength(1);
  });

  it("completes a delivered job's step with success, found by the sweep after a restart", async () => {
    const job = await deliver(await startStep());
    // The process that delivered it is gone; a new one sweeps at its start.
    const s = replica();
    s.start();
    await s.settled();
    expect(port.calls.map((c) => [c.kind, c.job.id])).toEqual([["succeed", job.id]]);
    expect((await repo.get(job.id))?.stepCompleted).toMatchObject({ outcome: "success" });
  });

  it("tries again after a completion Slack did not answer, and takes 'already' for done", async () => {
    const job = await deliver(await startStep());
    const s = replica();
    port.answers.push(new SlackPortError("no answer", { transient: true }), "already");
    await s.settle(job.id);
    expect((await repo.get(job.id))?.stepCompleted).toBeUndefined();
    expect(await pending()).toEqual([job.id]);
    await s.sweep();
    expect(port.calls).toHaveLength(2);
    expect((await repo.get(job.id))?.stepCompleted).toMatchObject({ outcome: "success" });
    expect(await pending()).toEqual([]);
  });

  it("completes once when two replicas see the job end at the same time", async () => {
    const job = await deliver(await startStep());
    let open: () => void = () => {};
    port.gate = new Promise((resolve) => {
      open = resolve;
    });
    const [a, b] = [replica(), replica()];
    const first = a.settle(job.id);
    const second = b.settle(job.id);
    await new Promise((resolve) => setTimeout(resolve, 20));
    open();
    await Promise.all([first, second]);
    await b.sweep();
    expect(port.calls).toHaveLength(1);
  });

  it("looks again when the job ends while a look at it is under way", async () => {
    const s = replica();
    const job = await startStep();
    // A sweep holds the job's lease, finds it running…
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const get = repo.get.bind(repo);
    let first = true;
    repo.get = async (id: string) => {
      const found = await get(id);
      if (first) {
        first = false;
        await held;
      }
      return found;
    };
    const sweep = s.sweep();
    await new Promise((resolve) => setTimeout(resolve, 10));
    // …while the job is canceled (its record written as a command would, lease aside).
    const { wakeAt: _, ...rest } = job;
    const canceled: Job = {
      ...rest,
      stage: "canceled",
      canceledStage: "queued",
      canceledBy: "U1",
      finishedAt: 2,
    };
    await repo.save(canceled, job);
    s.observe(canceled);
    release();
    await sweep;
    await s.settled();
    expect(port.calls.map((c) => c.job.stage)).toEqual(["canceled"]);
  });

  it("records a step Slack will take no completion for, and stops trying", async () => {
    const job = await deliver(await startStep());
    port.answers.push("refused");
    await replica().settle(job.id);
    expect((await repo.get(job.id))?.stepCompleted).toMatchObject({ outcome: "refused" });
    expect(await pending()).toEqual([]);
  });

  it("forgets a step whose job is gone", async () => {
    const job = await startStep();
    await repo.forget(job.id);
    await replica().sweep();
    expect(port.calls).toEqual([]);
    expect(await pending()).toEqual([]);
  });

  it("keeps the step completed through a Retry: a later ending completes nothing", async () => {
    const job = await startStep();
    const failed = transition(
      job,
      { type: "failed", failure: { code: "unavailable" }, retryable: true },
      store.now(),
    );
    const completed = transition(failed, { type: "step_completed", outcome: "error" }, 2);
    const retried = transition(completed, { type: "retried" }, 3);
    expect(retried.stepCompleted).toEqual({ at: 2, outcome: "error" });
    // Only an ended job takes a completion, and only one.
    expect(() => transition(job, { type: "step_completed", outcome: "error" }, 4)).toThrow();
    expect(() => transition(completed, { type: "step_completed", outcome: "error" }, 4)).toThrow();
  });
});
