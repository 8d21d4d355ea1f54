import { WebClient } from "@slack/web-api";
import { pino } from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Job } from "../../../src/jobs/index.ts";
import { defaultSlackRetry } from "../../../src/slack/connection/create-bolt-app.ts";
import { slackHostsOf } from "../../../src/slack/gateway/download-slack-file.ts";
import { SlackGateway } from "../../../src/slack/gateway/slack-gateway.ts";
import { SlackBudget } from "../../../src/slack/rate-budget/slack-budget.ts";
import { createFakeSlack, type FakeSlack } from "../../../support/fake-slack/create-fake-slack.ts";
import { HttpFaultProxy } from "../../../support/helpers/http-fault-proxy.ts";
import { origin, source } from "../../../support/helpers/jobs-kit.ts";

/*
 * The first status message of a job, posted exactly once when Slack's answer is lost: the
 * gateway over a real WebClient and the budget, the fake Slack behind a fault proxy.
 */

const C = "C0STATUS1";
const logger = pino({ level: "silent" });
let fake: FakeSlack;
const proxy = new HttpFaultProxy();

/** A gateway as a process has one: a fresh one is a restarted process. */
function newGateway(): SlackGateway {
  const budget = new SlackBudget({
    logger,
    allowanceScale: 100,
    resend: { tries: 3, baseDelayMs: 1 },
  });
  const client = new WebClient(fake.botToken, {
    slackApiUrl: `${proxy.origin}/api/`,
    retryConfig: defaultSlackRetry,
    rejectRateLimitedCalls: true,
    fetch: budget.fetchFor("background"),
  });
  return new SlackGateway({
    clientsOf: () => ({ client, botToken: fake.botToken }),
    slackHosts: slackHostsOf(`${proxy.origin}/api/`),
    logger,
  });
}

let n = 0;
/** A new queued job in a new thread of the channel. */
function newJob(overrides: Partial<Job> = {}): Job {
  n += 1;
  const parent = fake.addMessage({ channel: C, user: "U0ALICE01", text: `recording ${n}` });
  return {
    id: `job-${n}`,
    createdAt: Date.now(),
    updatedAt: Date.now(),
    stageStartedAt: Date.now(),
    attempts: 0,
    origin: origin({ channelId: C, threadTs: parent.ts }),
    source: source(),
    options: {},
    stage: "queued",
    ...overrides,
  } as Job;
}

const statusesIn = (job: Job) =>
  fake
    .thread(C, job.origin.threadTs)
    .filter(
      (m) =>
        m.metadata?.event_payload.job_id === job.id && m.metadata.event_payload.kind === "status",
    );
const reads = () => fake.callsTo("conversations.replies").length;

beforeAll(async () => {
  await proxy.start();
  fake = await createFakeSlack({ publicOrigin: proxy.origin });
  proxy.target = fake.origin;
  fake.addUser({ id: "U0ALICE01", name: "alice", real_name: "Alice" });
  fake.addChannel({ id: C, name: "standups" });
});
afterAll(async () => {
  await fake.close();
  await proxy.stop();
});
beforeEach(() => proxy.heal());

describe("the first status message", () => {
  it("is posted without reading the thread when nothing is in doubt", async () => {
    const gateway = newGateway();
    const job = newJob();
    const before = reads();
    const ts = await gateway.showStatus(job, "stage", undefined, false);
    expect(statusesIn(job).map((m) => m.ts)).toEqual([ts]);
    expect(reads()).toBe(before);
  });

  it("whose answer was lost is found in the thread and edited, not posted again", async () => {
    const gateway = newGateway();
    const job = newJob({ statusPostingAt: Date.now() });
    proxy.add({ methods: ["chat.postMessage"], fault: "lose_503", times: 1 });
    await expect(gateway.showStatus(job, "stage", undefined, false)).rejects.toThrow();
    expect(statusesIn(job)).toHaveLength(1);
    const before = reads();
    const moved = { ...job, stage: "downloading", tempPath: "/tmp/x" } as Job;
    const ts = await gateway.showStatus(moved, "stage", undefined, true);
    expect(statusesIn(job).map((m) => m.ts)).toEqual([ts]);
    expect(statusesIn(job)[0]?.text).toContain("Downloading");
    expect(reads()).toBe(before + 1);
  });

  it("an earlier process may have posted (its intent saved) is adopted after a restart", async () => {
    const job = newJob({ statusPostingAt: Date.now() });
    // The process before the restart posted it, then died before saving its ts.
    const earlier = await newGateway().showStatus(job, "stage", undefined, false);
    const restarted = newGateway();
    const ts = await restarted.showStatus(job, "stage");
    expect(ts).toBe(earlier);
    expect(statusesIn(job)).toHaveLength(1);
  });

  it("refused by Slack outright is posted again without a read: nothing can be there", async () => {
    const gateway = newGateway();
    const job = newJob({ statusPostingAt: Date.now() });
    fake.knobs.failNext = { method: "chat.postMessage", error: "fatal_error" };
    await expect(gateway.showStatus(job, "stage", undefined, false)).rejects.toThrow();
    const before = reads();
    await gateway.showStatus(job, "stage", undefined, true);
    expect(reads()).toBe(before);
    expect(statusesIn(job)).toHaveLength(1);
  });

  it("adopts this job's status only, not another job's in the same thread", async () => {
    const job = newJob({ statusPostingAt: Date.now() });
    const otherJob = { ...job, id: "another-job" } as Job;
    const theirs = await newGateway().showStatus(otherJob, "stage", undefined, false);
    const ts = await newGateway().showStatus(job, "stage");
    expect(ts).not.toBe(theirs);
    expect(statusesIn(job).map((m) => m.ts)).toEqual([ts]);
  });
});
