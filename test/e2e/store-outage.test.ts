import { readFile, stat } from "node:fs/promises";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ACTIONS } from "../../src/slack/ids.ts";
import { en } from "../../src/slack/messages/catalog.ts";
import {
  ALICE,
  buttonOn,
  CHANNEL,
  clickButton,
  eventually,
  SIGNING_SECRET,
  type Stack,
  shareRecording,
  startStack,
  statusMessage,
} from "../../support/e2e/stack.ts";
import { sendEvent } from "../../support/fake-slack/slack-request.ts";
import { StoreFault } from "../../support/helpers/failing-store.ts";

/**
 * The store failing after Slack's ack (Redis down, SQLite unable to write): the real app
 * over HTTP, its SQLite store behind a switch that makes every call (or every write) fail.
 * An upload is kept in the request journal and becomes one job once the store is back;
 * a click is told once that it was not applied, and is not applied later.
 */
let stack: Stack;
const fault = new StoreFault();
beforeAll(async () => {
  stack = await startStack(
    {},
    {
      wrapStore: (store) => fault.wrap(store),
      // Replayed every few ms; the thread hears at the first pass that finds the store down.
      journal: { backoff: { baseMs: 20, maxMs: 50 }, tellAfterMs: 0 },
    },
  );
});
afterAll(() => stack.stop());
beforeEach(() => {
  fault.mode = "none";
});

const journalPath = () => `${stack.temp.dir}/e2e.sqlite.pending.jsonl`;
const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );
const statuses = (ts: string) =>
  stack.thread(ts).filter((m) => m.metadata?.event_payload.kind === "status");
const waitingNotices = (ts: string) =>
  stack.thread(ts).filter((m) => m.text.includes("as soon as my storage is working again"));
const jobsOfChannel = () => stack.app.jobs.service.listByChannel(stack.fake.teamId, CHANNEL);

describe("an upload while the store fails", () => {
  it("is kept, said to wait once, and becomes one job when the store is back, whatever Slack redelivers", async () => {
    const before = (await jobsOfChannel()).length;
    fault.mode = "all";
    const { ts, event, sent } = await shareRecording(stack, "outage.m4a");
    expect(sent.acked).toBe(true);
    // Slack's retry of the event (as if the ack had been lost) while the store is down.
    const retry = await sendEvent(stack.url, SIGNING_SECRET, event, {
      teamId: stack.fake.teamId,
      eventId: sent.eventId,
      retryNum: 1,
    });
    expect(retry.status).toBe(200);
    // A second upload in the same outage waits too, and its thread hears so as well.
    const other = await shareRecording(stack, "outage-2.m4a");
    for (const thread of [ts, other.ts]) {
      await eventually(
        () => waitingNotices(thread),
        (said) => said.length === 1,
        {
          what: "the thread to hear the upload waits",
        },
      );
    }
    // More passes find the store down: no thread is told again.
    const failed = fault.failed;
    await eventually(
      () => fault.failed,
      (n) => n > failed + 3,
    );
    // One entry per upload: Slack's retry was merged into the first.
    const kept = (await readFile(journalPath(), "utf8")).split("\n").filter(Boolean);
    expect(kept).toHaveLength(2);

    fault.mode = "none";
    await eventually(
      () => statuses(ts),
      (s) => s.length === 1,
      { what: "the job's status" },
    );
    await eventually(
      () => statuses(other.ts),
      (s) => s.length === 1,
    );
    await eventually(
      () => exists(journalPath()),
      (there) => !there,
    );
    // Slack's last retry, after the store is back, is the same upload.
    await sendEvent(stack.url, SIGNING_SECRET, event, {
      teamId: stack.fake.teamId,
      eventId: sent.eventId,
      retryNum: 2,
    });
    await stack.settled();
    expect(statuses(ts)).toHaveLength(1);
    expect(waitingNotices(ts)).toHaveLength(1);
    expect(waitingNotices(other.ts)).toHaveLength(1);
    expect((await jobsOfChannel()).length).toBe(before + 2);
  });

  it("is kept when only writes fail (SQLite unable to write), and becomes one job", async () => {
    const before = (await jobsOfChannel()).length;
    fault.mode = "writes";
    const { ts } = await shareRecording(stack, "disk-full.m4a", { text: "Budget review" });
    await eventually(
      () => exists(journalPath()),
      (there) => there,
    );
    fault.mode = "none";
    await eventually(
      () => statuses(ts),
      (s) => s.length === 1,
      { what: "the job's status" },
    );
    await stack.settled();
    const jobs = await jobsOfChannel();
    expect(jobs.length).toBe(before + 1);
    const job = jobs.find((j) => j.origin.threadTs === ts);
    expect(job?.options.contextText).toContain("Budget review");
  });
});

describe("a click while the store cannot write", () => {
  it("is told once that it was not applied, and is not applied later", async () => {
    const { ts } = await shareRecording(stack, "clicks.m4a");
    const at = await buttonOn(stack, ts, ACTIONS.skipNaming);
    const told = () =>
      stack.fake.ephemerals.filter((e) => e.user === ALICE && e.text === en["store.unavailable"]);
    const earlier = told().length;
    // The naming step ends after its prompt is drawn: a fault before then would cut its
    // lease off mid-step, and the job would stay leased (busy) until the lease lapsed.
    await stack.settled();
    fault.mode = "writes";
    await clickButton(stack, ACTIONS.skipNaming, at);
    await eventually(
      () => told().length,
      (n) => n === earlier + 1,
      { what: "the sentence" },
    );
    await clickButton(stack, ACTIONS.cancel, at);
    await eventually(
      () => told().length,
      (n) => n === earlier + 2,
      { what: "the sentence" },
    );
    fault.mode = "none";
    await stack.settled();
    expect((await stack.job(at.jobId))?.stage).toBe("naming");
    expect(told()).toHaveLength(earlier + 2);
    // Pressed again once the store is back, it is applied.
    await clickButton(stack, ACTIONS.skipNaming, at);
    await eventually(
      () => stack.job(at.jobId),
      (job) => job?.stage !== "naming",
    );
    expect(statusMessage(stack.thread(ts))).toBeDefined();
  });
});
