import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  Admission,
  createServices,
  defaultAdmissionLimits,
  JobRepository,
  type JobService,
  type Services,
  type StartAttempt,
  StartNotRecorded,
  StoreUnavailableError,
} from "../../src/jobs/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { StoreFault } from "../../support/helpers/failing-store.ts";
import { origin, source } from "../../support/helpers/jobs-kit.ts";

let memory: Store;
let fault: StoreFault;
let service: JobService;
let services: Services;
let repo: JobRepository;
const kicked: string[] = [];

beforeEach(async () => {
  memory = await openStore("memory://");
  fault = new StoreFault();
  const store = fault.wrap(memory);
  const logger = pino({ level: "silent" });
  repo = new JobRepository(memory, { retentionMs: 60_000, logger });
  kicked.length = 0;
  services = createServices({
    repo: new JobRepository(store, { retentionMs: 60_000, logger }),
    store,
    admission: new Admission({
      store,
      limits: defaultAdmissionLimits,
      logger,
      stillHolds: async () => true,
    }),
    logger,
    retentionMs: 60_000,
    runner: {
      kick: (id) => kicked.push(id),
      abort: () => {},
      settle: () => {},
      discard: async () => {},
    },
  });
  service = services.service;
});
afterEach(() => memory.close());

/** The start's error, which must say the store failed and how to start again. */
async function notRecorded(start: Promise<unknown>): Promise<StartAttempt> {
  const error = await start.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StartNotRecorded);
  return (error as StartNotRecorded).attempt;
}

const upload = () => ({ origin: origin(), source: source(), text: "agenda" });

describe("a start the store interrupts", () => {
  it("says how to start again when the store cannot even claim the upload", async () => {
    const input = upload();
    fault.mode = "all";
    const attempt = await notRecorded(service.startFromUpload(input));
    expect(attempt.claimed).toBe(false);
    // Slack's redelivery of the event meanwhile fails the same way: nothing is recorded.
    await notRecorded(service.startFromUpload(input));
    fault.mode = "none";
    const replayed = await service.startFromUpload(input, attempt);
    expect(replayed).toMatchObject({ status: "created", job: { id: attempt.jobId } });
    expect(await service.startFromUpload(input)).toEqual({ status: "duplicate" });
    expect(await service.startFromUpload(input, attempt)).toEqual({ status: "duplicate" });
    expect(kicked).toEqual([attempt.jobId]);
  });

  it("goes on under a claim it could not give back, and a redelivery makes nothing", async () => {
    const input = upload();
    // The claim is taken, then the job's writes and the claim's release fail.
    fault.mode = "some";
    fault.methods = new Set(["addMember", "set", "releaseClaim"]);
    const attempt = await notRecorded(service.startFromUpload(input));
    expect(attempt.claimed).toBe(true);
    expect(await service.startFromUpload(input)).toEqual({ status: "duplicate" });
    // Still failing: the replay learns nothing new and keeps its attempt.
    expect(await notRecorded(service.startFromUpload(input, attempt))).toEqual(attempt);
    fault.mode = "none";
    const replayed = await service.startFromUpload(input, attempt);
    expect(replayed).toMatchObject({ status: "created", job: { id: attempt.jobId } });
    expect(await service.startFromUpload(input)).toEqual({ status: "duplicate" });
    expect(kicked).toEqual([attempt.jobId]);
  });

  it("does not make the job again when the interrupted attempt recorded it after all", async () => {
    const input = upload();
    fault.mode = "some";
    fault.methods = new Set(["addMember"]);
    const attempt = await notRecorded(service.startFromUpload(input));
    fault.mode = "none";
    // As if the record had been written before the store failed, under the claim.
    const held = { ...attempt, claimed: true };
    const first = await service.start({ ...input, options: {} }, held);
    expect(first.status).toBe("created");
    expect(await service.startFromUpload(input, held)).toEqual({ status: "duplicate" });
    expect((await repo.get(attempt.jobId))?.options).toEqual({});
  });

  it("marks every store failure of the job service, so the Slack layer can tell it", async () => {
    fault.mode = "all";
    await expect(service.get("any")).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(service.skipNaming("any")).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(services.modals.read("k")).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});
