import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JobRepository } from "../../src/jobs/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";

let store: Store;
let repo: JobRepository;
beforeEach(async () => {
  store = await openStore("memory://");
  repo = new JobRepository(store, { retentionMs: 60_000, logger: pino({ level: "silent" }) });
});
afterEach(() => store.close());

describe("a job's requests", () => {
  it("reads a stop an earlier version recorded: a cancel by name, a failure", async () => {
    await store.set("meta", "cancel:j1", "U1");
    const failed = { type: "failed", failure: { code: "install_unavailable" }, retryable: true };
    await store.set("meta", "cancel:j2", failed);
    expect(await repo.requests.list("j1")).toEqual([{ type: "canceled", by: "U1" }]);
    expect(await repo.requests.list("j2")).toEqual([failed]);
    expect(await repo.requests.list("j3")).toEqual([]);
  });

  it("reads names an earlier version recorded in the Note Service's spelling", async () => {
    const speakerMap = [{ speaker_id: "speaker_1", name: "Lan" }];
    await store.set("meta", "cancel:j1", [{ type: "names_given", speakerMap }]);
    await store.set("meta", "cancel:j2", [{ type: "regenerate", speakerMap }]);
    const names = [{ speakerId: "speaker_1", name: "Lan" }];
    expect(await repo.requests.list("j1")).toEqual([{ type: "names_given", speakerMap: names }]);
    expect(await repo.requests.list("j2")).toEqual([{ type: "regenerate", speakerMap: names }]);
  });

  it("reads something it cannot make sense of as a cancel, as a stop request always was", async () => {
    await store.set("meta", "cancel:j1", { type: "launch_missiles" });
    expect(await repo.requests.list("j1")).toEqual([{ type: "canceled", by: "unknown" }]);
  });

  it("keeps the order they came in, and what came while the first ones were applied", async () => {
    const add = (type: "naming_skipped" | "retried") =>
      repo.requests.record("j1", async () => ({ value: undefined, add: { type } }));
    await add("naming_skipped");
    await add("retried");
    const seen = await repo.requests.list("j1");
    await add("naming_skipped");
    await repo.requests.remove("j1", seen.length);
    expect(await repo.requests.list("j1")).toEqual([{ type: "naming_skipped" }]);
    await repo.requests.remove("j1", 1);
    expect(await store.get("meta", "cancel:j1")).toBeUndefined();
  });

  it("records nothing a decision refuses, and judges two at once one after the other", async () => {
    const seenBy: number[] = [];
    const judge = () =>
      repo.requests.record("j1", async (waiting) => {
        seenBy.push(waiting.length);
        return waiting.length === 0
          ? { value: true, add: { type: "naming_skipped" as const } }
          : { value: false };
      });
    expect(await Promise.all([judge(), judge()])).toEqual([true, false]);
    expect(seenBy).toEqual([0, 1]);
    expect(await repo.requests.list("j1")).toHaveLength(1);
  });
});
