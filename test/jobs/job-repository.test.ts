import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Job, JobRepository, jobLeaseKey, speakerQuotesSchema } from "../../src/jobs/index.ts";
import { loadStored } from "../../src/jobs/persistence/blobs.ts";
import { dialogSchema } from "../../src/notetaker/schemas.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { eventually } from "../../support/helpers/eventually.ts";
import { origin, source } from "../../support/helpers/jobs-kit.ts";
import { makeTempDir } from "../../support/helpers/temp-files.ts";

const job = (id: string, stage: "queued" | "canceled" = "queued"): Job => {
  const base = {
    id,
    createdAt: 1,
    updatedAt: 1,
    stageStartedAt: 1,
    attempts: 0,
    origin: origin(),
    source: source(),
    options: {},
  };
  return stage === "queued"
    ? { ...base, stage, wakeAt: 1 }
    : { ...base, stage, canceledStage: "queued", canceledBy: "U1", finishedAt: 2 };
};

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let store: Store;
beforeEach(async () => {
  temp = await makeTempDir();
  store = await openStore(`sqlite://${temp.dir}/jobs.sqlite`);
});
afterEach(async () => {
  await store.close();
  await temp.cleanup();
});

describe("JobRepository", () => {
  it("expires jobs, their dialogs and notes after the retention period", async () => {
    const repo = new JobRepository(store, { retentionMs: 80, logger: pino({ level: "silent" }) });
    await repo.create(job("j1"));
    expect(await repo.get("j1")).toBeDefined();
    await eventually(
      () => repo.get("j1"),
      (found) => found === undefined,
      { what: "the job to expire" },
    );
  });

  it("keeps the active index in step with the stage", async () => {
    const repo = new JobRepository(store, {
      retentionMs: 60_000,
      logger: pino({ level: "silent" }),
    });
    await repo.create(job("j1"));
    expect(await repo.listActiveIds()).toEqual(["j1"]);
    await repo.save(job("j1", "canceled"));
    expect(await repo.listActiveIds()).toEqual([]);
  });

  it("touches the active index only when a save moves a job in or out of the active stages", async () => {
    const repo = new JobRepository(store, {
      retentionMs: 60_000,
      logger: pino({ level: "silent" }),
    });
    const calls: string[] = [];
    const add = store.addActive.bind(store);
    const remove = store.removeActive.bind(store);
    store.addActive = (id, stage) => {
      calls.push(`add ${id}`);
      return add(id, stage);
    };
    store.removeActive = (id) => {
      calls.push(`remove ${id}`);
      return remove(id);
    };
    const queued = job("j1");
    await repo.create(queued);
    expect(calls).toEqual(["add j1"]);
    await repo.save({ ...queued, updatedAt: 2 }, queued);
    expect(calls).toEqual(["add j1"]);
    const canceled = job("j1", "canceled");
    await repo.save(canceled, queued);
    await repo.save({ ...canceled, updatedAt: 3 }, canceled);
    expect(calls).toEqual(["add j1", "remove j1"]);
    // Active again (a Regenerate or Retry): it joins the index before its record says so.
    await repo.save(queued, canceled);
    expect(calls).toEqual(["add j1", "remove j1", "add j1"]);
    expect(await repo.listActiveIds()).toEqual(["j1"]);
    // Without the previous record both are checked, as before.
    await repo.save(canceled);
    expect(calls.at(-1)).toBe("remove j1");
    expect(await repo.listActiveIds()).toEqual([]);
  });

  it("forgets an indexed id only when, under the job's lease, the job is not active", async () => {
    const repo = new JobRepository(store, {
      retentionMs: 60_000,
      logger: pino({ level: "silent" }),
    });
    // A sweep read j1 finished; meanwhile a Regenerate made it active again.
    await repo.save(job("j1", "canceled"));
    await repo.save(job("j1"), job("j1", "canceled"));
    expect(await repo.forgetIfInactive("j1")).toBe(false);
    expect(await repo.listActiveIds()).toEqual(["j1"]);
    // Finished, but someone holds its lease: left for the next sweep.
    await repo.save(job("j1", "canceled"), job("j1"));
    await store.addActive("j1", "queued");
    const token = await store.acquireLease(jobLeaseKey("j1"), 10_000);
    expect(await repo.forgetIfInactive("j1")).toBe(false);
    expect(await repo.listActiveIds()).toEqual(["j1"]);
    await store.releaseLease(jobLeaseKey("j1"), token ?? "");
    expect(await repo.forgetIfInactive("j1")).toBe(true);
    expect(await repo.listActiveIds()).toEqual([]);
    // A record that expired or never was: forgotten too.
    await store.addActive("ghost", "queued");
    expect(await repo.forgetIfInactive("ghost")).toBe(true);
    expect(await repo.listActiveIds()).toEqual([]);
  });

  it("keeps a new job out of the claims until its record is written", async () => {
    // Regression: the queue learnt a new job before its record did, so a replica claiming at
    // that moment found no record and forgot the job: it was never driven (1 in ~4 suites).
    const repo = new JobRepository(store, {
      retentionMs: 60_000,
      logger: pino({ level: "silent" }),
    });
    let claimedEarly: string[] | undefined;
    const set = store.set.bind(store);
    store.set = async (ns, key, value, ttlMs) => {
      if (ns === "jobs") {
        const early = await store.claimDue(Date.now() + 1000, 10, jobLeaseKey(""), 5000);
        claimedEarly = early.claimed.map((c) => c.jobId);
      }
      return set(ns, key, value, ttlMs);
    };
    await repo.create({ ...job("fresh"), wakeAt: Date.now() });
    expect(claimedEarly).toEqual([]);
    store.set = set;
    const after = await store.claimDue(Date.now() + 1000, 10, jobLeaseKey(""), 5000);
    expect(after.claimed.map((c) => c.jobId)).toEqual(["fresh"]);
  });

  it("treats a damaged record as gone instead of trusting it", async () => {
    const repo = new JobRepository(store, {
      retentionMs: 60_000,
      logger: pino({ level: "silent" }),
    });
    await store.set("jobs", "bad", { id: "bad", stage: "transcribing", audio: "??" });
    expect(await repo.get("bad")).toBeUndefined();
  });

  it("moves a transcript held inline by an older record out to a blob on its next save", async () => {
    const repo = new JobRepository(store, {
      retentionMs: 60_000,
      logger: pino({ level: "silent" }),
    });
    const dialog = Array.from({ length: 2000 }, (_, i) => ({
      speaker_id: `speaker_${(i % 3) + 1}`,
      start_seconds: i * 4,
      end_seconds: i * 4 + 3.5,
      text: `Sentence number ${i} of a long meeting about the budget and the roadmap.`,
    }));
    // As an earlier version wrote it: the dialog itself in the record.
    const { wakeAt: _, ...waiting } = job("legacy");
    await store.set("jobs", "legacy", { ...waiting, stage: "naming", dialog, speakers: [] });
    const read = await repo.get("legacy");
    expect(read?.stage === "naming" && read.dialog).toEqual({ inline: dialog });
    if (read === undefined) return;
    await repo.save(read, read);
    const raw = await store.get<Record<string, unknown>>("jobs", "legacy");
    expect(JSON.stringify(raw).length).toBeLessThan(2048);
    const ref = raw?.dialog as { blob: string };
    expect(await store.get("blobs", ref.blob)).toEqual(dialog);
    const again = await repo.get("legacy");
    if (again?.stage !== "naming") throw new Error("not naming");
    expect(await loadStored(store, again.dialog, dialogSchema)).toEqual(dialog);
    // A workspace that leaves takes its blobs with its jobs.
    await repo.forget("legacy");
    expect(await store.get("blobs", ref.blob)).toBeUndefined();
  });

  it("reads the speaker names an earlier version kept in the Note Service's spelling", async () => {
    const repo = new JobRepository(store, {
      retentionMs: 60_000,
      logger: pino({ level: "silent" }),
    });
    const { wakeAt: _, ...base } = job("names");
    await store.set("jobs", "names", {
      ...base,
      stage: "writing",
      wakeAt: 5,
      note: {
        dialog: { blob: "names:d" },
        speakers: [],
        quotes: { inline: {} },
        speakerMap: [
          { speaker_id: "speaker_1", name: "Lan", gender: "female" },
          { speaker_id: "speaker_2", name: "Minh" },
        ],
      },
      task: { pollAttempt: 0, progress: null },
      relinks: 0,
      delivery: 1,
    });
    const read = await repo.get("names");
    expect(read !== undefined && "note" in read && read.note.speakerMap).toEqual([
      { speakerId: "speaker_1", name: "Lan", gender: "female" },
      { speakerId: "speaker_2", name: "Minh" },
    ]);
    if (read === undefined) return;
    await repo.save(read, read);
    const raw = await store.get<{ note: { speakerMap: unknown } }>("jobs", "names");
    expect(raw?.note.speakerMap).toEqual([
      { speakerId: "speaker_1", name: "Lan", gender: "female" },
      { speakerId: "speaker_2", name: "Minh" },
    ]);
  });

  it("keeps speakers' quotes out of the record (12 speakers: under 2 KB), older records' too", async () => {
    const repo = new JobRepository(store, {
      retentionMs: 60_000,
      logger: pino({ level: "silent" }),
    });
    const ids = Array.from({ length: 12 }, (_, i) => `speaker_${i + 1}`);
    const quotes = Object.fromEntries(
      ids.map((id, i) => [
        id,
        [
          { atSeconds: i * 60, text: `${"a".repeat(138)}…` },
          { atSeconds: i * 60 + 30, text: `${"b".repeat(138)}…` },
        ],
      ]),
    );
    // As an earlier version wrote them: each speaker with its quotes, in the record.
    const heard = ids.map((speakerId) => ({
      speakerId,
      seconds: 180,
      share: 0.05,
      quotes: quotes[speakerId],
    }));
    const speakerMap = ids.map((speaker_id) => ({ speaker_id, name: "Lan" }));
    const { wakeAt: _, ...base } = job("x");
    const dialog = { blob: "x:d" };
    const writing = {
      ...base,
      stage: "writing",
      wakeAt: 5,
      note: { dialog, speakers: heard, speakerMap },
      task: { taskId: "n1", pollAttempt: 4, progress: null },
      relinks: 0,
      delivery: 1,
    };
    const legacy = {
      naming: { ...base, id: "naming", stage: "naming", dialog, speakers: heard },
      writing: { ...writing, id: "writing" },
      failed: {
        ...base,
        id: "failed",
        stage: "failed",
        failedStage: "writing",
        failure: { code: "task_failed" },
        retryable: true,
        resume: writing,
        finishedAt: 9,
      },
    };
    for (const [id, record] of Object.entries(legacy)) {
      await store.set("jobs", id, record);
      const read = await repo.get(id);
      if (read === undefined) throw new Error(`${id} unreadable`);
      const held = read.stage === "failed" ? read.resume : read;
      const stored = held.stage === "naming" ? held.quotes : "note" in held && held.note.quotes;
      if (!stored) throw new Error(`${id} has no quotes`);
      expect(stored).toEqual({ inline: quotes });
      const speakers =
        held.stage === "naming" ? held.speakers : "note" in held && held.note.speakers;
      expect(speakers).toEqual(heard.map(({ quotes: _q, ...rest }) => rest));
      await repo.save(read, read);
      const raw = await store.get<unknown>("jobs", id);
      // The records polled (a failed one, read on Retry only, holds the job twice: ~2.1 KB).
      if (id !== "failed") expect(JSON.stringify(raw).length, id).toBeLessThan(2048);
      expect(JSON.stringify(raw)).not.toContain("aaaa");
      const again = await repo.get(id);
      const kept = again?.stage === "failed" ? again.resume : again;
      const ref =
        kept?.stage === "naming" ? kept.quotes : kept && "note" in kept && kept.note.quotes;
      if (!ref || !("blob" in ref)) throw new Error(`${id}: quotes not moved out`);
      expect(await loadStored(store, ref, speakerQuotesSchema)).toEqual(quotes);
    }
  });
});
