import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { PersonDraws } from "../../src/jobs/engine/person-draws.ts";
import { type Job, JobRepository, type SlackPort, type StatusMode } from "../../src/jobs/index.ts";
import { openStore } from "../../src/store/index.ts";
import { origin, source } from "../../support/helpers/jobs-kit.ts";

const writing = (over: Partial<Job> = {}): Job =>
  ({
    id: "j1",
    stage: "writing",
    origin: origin(),
    source: source(),
    options: {},
    attempts: 0,
    createdAt: 1,
    updatedAt: 1,
    stageStartedAt: 1,
    ...over,
  }) as Job;

/** The draws asked of Slack: the job's stage, the mode, and whether to look for the message. */
async function drawsOf(job: Job) {
  const asked: [string, StatusMode | undefined, boolean | undefined][] = [];
  const gateway = {
    showStatus: async (drawn: Job, mode?: StatusMode, _latest?: unknown, mayExist?: boolean) => {
      asked.push([drawn.stage, mode, mayExist]);
      return "1.0";
    },
  } as unknown as SlackPort;
  const store = await openStore("memory://");
  const logger = pino({ level: "silent" });
  const repo = new JobRepository(store, { retentionMs: 60_000, logger });
  const draws = new PersonDraws({ gateway, repo, logger });
  draws.show(job);
  await draws.idle();
  await store.close();
  return asked;
}

describe("a person's draw", () => {
  it("draws the job's status message as the person's, at once", async () => {
    expect(await drawsOf(writing({ statusTs: "1.0" }))).toEqual([["writing", "person", false]]);
  });

  it("looks for a status message whose post lost its answer, rather than skip it", async () => {
    expect(await drawsOf(writing({ statusPostingAt: 5 }))).toEqual([["writing", "person", true]]);
  });

  it("leaves a status message never posted to the job's next step, which checkpoints it", async () => {
    expect(await drawsOf(writing())).toEqual([]);
  });
});
