import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  Admission,
  createServices,
  defaultAdmissionLimits,
  JobRepository,
  type JobService,
  type Services,
  transition,
} from "../../src/jobs/index.ts";
import { MAX_AUDIO_BYTES } from "../../src/recordings/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { origin, source } from "../../support/helpers/jobs-kit.ts";

let store: Store;
let service: JobService;
let services: Services;
const kicked: string[] = [];
const aborted: string[] = [];
const settled: string[] = [];
const discarded: string[] = [];
const scope = { teamId: "T1", channelId: "C1" };
const docx = (fill: number) => new Uint8Array([0x50, 0x4b, 3, 4, fill]);

beforeEach(async () => {
  store = await openStore("memory://");
  const logger = pino({ level: "silent" });
  const repo = new JobRepository(store, { retentionMs: 60_000, logger });
  kicked.length = aborted.length = settled.length = discarded.length = 0;
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
    runner: {
      kick: (id) => kicked.push(id),
      abort: (id) => aborted.push(id),
      settle: (job) => settled.push(job.id),
      discard: async (id) => {
        discarded.push(id);
      },
    },
  });
  service = services.service;
});
afterEach(() => store.close());

describe("JobService", () => {
  it.each([
    ["notes.txt", 100, "unsupported_format"],
    ["call.wav", 0, "empty"],
    ["call.wav", MAX_AUDIO_BYTES + 1, "too_large_needs_ffmpeg"],
  ] as const)("refuses %s of %i bytes as %s, creating nothing", async (filename, size, reason) => {
    const result = await service.start({
      origin: origin(),
      source: source({ filename, size }),
      options: {},
    });
    expect(result).toEqual({ status: "refused", reason });
    expect(await store.listActive()).toEqual([]);
    expect(kicked).toEqual([]);
  });

  it("creates a queued job, indexes it by channel and user, and kicks the runner", async () => {
    const result = await service.start({
      origin: origin(),
      source: source({ fileId: "F1" }),
      options: { contextText: "agenda" },
    });
    if (result.status !== "created") throw new Error(result.status);
    expect(result.job).toMatchObject({ stage: "queued", options: { contextText: "agenda" } });
    expect(kicked).toEqual([result.job.id]);
    expect((await service.listByChannel("T1", "C1")).map((j) => j.id)).toEqual([result.job.id]);
    expect((await service.listByUser("T1", "U1")).map((j) => j.id)).toEqual([result.job.id]);
    expect(await service.listByChannel("T1", "C2")).toEqual([]);
  });

  it("refuses commands on unknown jobs and in the wrong stage", async () => {
    expect(await service.submitNames("nope", [])).toEqual({ ok: false, reason: "not_found" });
    const result = await service.start({ origin: origin(), source: source(), options: {} });
    if (result.status !== "created") throw new Error(result.status);
    const id = result.job.id;
    expect(await service.submitNames(id, [])).toEqual({ ok: false, reason: "wrong_stage" });
    expect(await service.skipNaming(id)).toEqual({ ok: false, reason: "wrong_stage" });
    expect(await service.retry(id)).toEqual({ ok: false, reason: "wrong_stage" });
    expect(await service.regenerate(id, {})).toEqual({ ok: false, reason: "wrong_stage" });
  });

  it("cancels at once when no step holds the job, and settles it", async () => {
    const result = await service.start({ origin: origin(), source: source(), options: {} });
    if (result.status !== "created") throw new Error(result.status);
    const canceled = await service.cancel(result.job.id, "U2");
    expect(canceled.ok && canceled.job).toMatchObject({ stage: "canceled", canceledBy: "U2" });
    expect(settled).toEqual([result.job.id]);
    expect(await store.listActive()).toEqual([]);
    expect(await service.cancel(result.job.id, "U2")).toEqual({ ok: false, reason: "wrong_stage" });
  });

  it("records a cancel request when a step holds the job, and aborts the step", async () => {
    const result = await service.start({ origin: origin(), source: source(), options: {} });
    if (result.status !== "created") throw new Error(result.status);
    const id = result.job.id;
    const token = await store.acquireLease(`job:${id}`, 60_000);
    expect(token).toBeDefined();
    const canceled = await service.cancel(id, "U3");
    expect(canceled.ok).toBe(true);
    expect(aborted).toEqual([id]);
    expect(await store.get("meta", `cancel:${id}`)).toEqual([{ type: "canceled", by: "U3" }]);
  });

  it("forgets a cancel that came as the job ended another way when the job is retried", async () => {
    const result = await service.start({ origin: origin(), source: source(), options: {} });
    if (result.status !== "created") throw new Error(result.status);
    const id = result.job.id;
    // A step holds the job: the cancel is recorded for its next checkpoint…
    const token = await store.acquireLease(`job:${id}`, 60_000);
    expect((await service.cancel(id, "U3")).ok).toBe(true);
    // …which never comes: the step fails the job first, and gives the lease back.
    const repo = new JobRepository(store, {
      retentionMs: 60_000,
      logger: pino({ level: "silent" }),
    });
    const job = await repo.get(id);
    if (job === undefined) throw new Error("no job");
    const failed = {
      type: "failed",
      failure: { code: "download_failed" },
      retryable: true,
    } as const;
    await repo.save(transition(job, failed, Date.now()), job);
    await store.releaseLease(`job:${id}`, token ?? "");
    expect((await service.retry(id)).ok).toBe(true);
    expect(await store.get("meta", `cancel:${id}`)).toBeUndefined();
  });

  it("keeps DOCX templates and per-channel settings", async () => {
    const id = await services.templates.save(scope, "t.docx", new Uint8Array([0x50, 0x4b, 3, 4]));
    expect(await store.get("templates", id)).toEqual({ filename: "t.docx", base64: "UEsDBA==" });
    await expect(services.templates.save(scope, "t.docx", new Uint8Array())).rejects.toThrow(
      /non-empty/,
    );
    expect(await services.settings.get("T1", "C1")).toEqual({
      autoTranscribe: true,
      canvas: true,
      transcript: true,
      mentions: false,
      review: false,
    });
    await services.settings.set("T1", "C1", { autoTranscribe: false, languageHint: "vi" });
    expect(await services.settings.get("T1", "C1")).toEqual({
      autoTranscribe: false,
      languageHint: "vi",
      canvas: true,
      transcript: true,
      mentions: false,
      review: false,
    });
  });

  it("keeps a template under a safe file name: no path, no bidi override, a .docx", async () => {
    const zip = new Uint8Array([0x50, 0x4b, 3, 4]);
    const id = await services.templates.save(scope, "../../\u202Excod.evil/Mẫu biên bản", zip);
    expect(await store.get("templates", id)).toMatchObject({
      filename: "xcod.evil_Mẫu biên bản.docx",
    });
    const hidden = await services.templates.save(scope, ".docx", docx(1));
    expect(await store.get("templates", hidden)).toMatchObject({ filename: "recording.docx" });
  });

  it("stores a template once per channel and content, however often it is saved", async () => {
    const set = store.set.bind(store);
    const writes: string[] = [];
    store.set = (ns, key, value, ttl) => {
      if (ns === "templates") writes.push(key);
      return set(ns, key, value, ttl);
    };
    const first = await services.templates.save(scope, "a.docx", docx(7));
    const again = await services.templates.save(scope, "renamed.docx", docx(7));
    const pinned = await services.templates.save(scope, "a.docx", docx(7), { pinned: true });
    const pinnedAgain = await services.templates.save(scope, "a.docx", docx(7), { pinned: true });
    const elsewhere = await services.templates.save(
      { ...scope, channelId: "C2" },
      "a.docx",
      docx(7),
    );
    const other = await services.templates.save(scope, "b.docx", docx(8));
    expect(new Set([first, again, pinned, pinnedAgain]).size).toBe(1);
    expect(elsewhere).not.toBe(first);
    expect(other).not.toBe(first);
    // Once with a retention, once pinned for settings, once per other channel or content.
    expect(writes).toEqual([first, first, elsewhere, other]);
  });

  it("keeps a settings template as long as the settings name it, then for the retention", async () => {
    // The store reads expiry from Date.now(): move the clock instead of waiting it out.
    vi.useFakeTimers({ toFake: ["Date"] });
    const expiring = await openStore("memory://");
    const logger = pino({ level: "silent" });
    const shortServices = createServices({
      repo: new JobRepository(expiring, { retentionMs: 300, logger }),
      store: expiring,
      admission: new Admission({
        store: expiring,
        limits: defaultAdmissionLimits,
        logger,
        stillHolds: async () => true,
      }),
      logger,
      retentionMs: 300,
      runner: { kick: () => 0, abort: () => 0, settle: () => 0, discard: async () => {} },
    });
    try {
      const id = await shortServices.templates.save(scope, "team.docx", docx(3), { pinned: true });
      await shortServices.settings.set("T1", "C1", { autoTranscribe: true, templateId: id });
      vi.setSystemTime(Date.now() + 400);
      expect(await expiring.get("templates", id)).toBeDefined();
      await shortServices.settings.set("T1", "C1", { autoTranscribe: true });
      expect(await expiring.get("templates", id)).toBeDefined();
      vi.setSystemTime(Date.now() + 400);
      expect(await expiring.get("templates", id)).toBeUndefined();
    } finally {
      vi.useRealTimers();
      await expiring.close();
    }
  });

  it("deletes everything of the install when it is removed, under each of its team ids", async () => {
    const gone = await service.start({
      origin: origin({ teamId: "T1", channelId: "C1", userId: "U1" }),
      source: source(),
      options: {},
    });
    // Filed under another team id of the same install (a Slack Connect channel's host).
    const host = await service.start({
      origin: origin({ teamId: "T2", channelId: "C9", userId: "U9" }),
      source: source(),
      options: {},
    });
    if (gone.status !== "created" || host.status !== "created") throw new Error("not created");
    const template = await services.templates.save(scope, "t.docx", docx(5), { pinned: true });
    await services.settings.set("T1", "C1", { autoTranscribe: false, templateId: template });
    await services.settings.set("T2", "C9", { autoTranscribe: false });

    expect(await services.installs.forget(["T1"])).toMatchObject({ jobs: 2, values: 4 });
    for (const job of [gone.job, host.job]) expect(await service.get(job.id)).toBeUndefined();
    expect(await service.listByChannel("T1", "C1")).toEqual([]);
    expect(await service.listByChannel("T2", "C9")).toEqual([]);
    expect(await store.listIndex("user:T1:U1")).toEqual([]);
    expect(await store.get("templates", template)).toBeUndefined();
    const defaults = {
      autoTranscribe: true,
      canvas: true,
      transcript: true,
      mentions: false,
      review: false,
    };
    expect(await services.settings.get("T1", "C1")).toEqual(defaults);
    expect(await services.settings.get("T2", "C9")).toEqual(defaults);
    expect(await store.listActive()).toEqual([]);
    expect(aborted).toEqual(expect.arrayContaining([gone.job.id, host.job.id]));
    expect(discarded.sort()).toEqual([gone.job.id, host.job.id].sort());
    // A step of the job still running somewhere meets a cancel request and saves nothing.
    expect(await store.get("meta", `cancel:${gone.job.id}`)).toEqual([
      { type: "canceled", by: "workspace_removed" },
    ]);
    expect(await services.installs.forget(["T1"])).toMatchObject({ jobs: 0, values: 0 });
  });
});
