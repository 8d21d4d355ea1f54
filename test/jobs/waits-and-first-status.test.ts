import { describe, expect, it } from "vitest";
import {
  DiskFullWatch,
  decideFailure,
  isDiskFull,
  type Job,
  SlackPortError,
  transition,
} from "../../src/jobs/index.ts";
import { NoteTakerTransientError } from "../../src/notetaker/index.ts";
import { origin, source } from "../../support/helpers/jobs-kit.ts";

const T = 1_000;
const common = {
  id: "job-1",
  createdAt: T,
  updatedAt: T,
  stageStartedAt: T,
  wakeAt: T,
  attempts: 0,
  origin: origin(),
  source: source({ fileId: "F1" }),
  options: {},
};
const queued: Job = { ...common, stage: "queued" };
const downloading: Job = { ...common, stage: "downloading", tempPath: "/tmp/a.m4a" };
const policy = { maxAttempts: 3, baseDelayMs: 1000, maxDelayMs: 60_000, random: () => 0 };
const enospc = () =>
  Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });

describe("a job waiting after a transient failure", () => {
  it("keeps why it waits until it does anything else, and drops it on a new try", () => {
    const waiting = transition(
      downloading,
      { type: "retry_later", wakeAt: T + 5, waiting: "slack_files" },
      T,
    );
    expect(waiting).toMatchObject({ waiting: "slack_files", attempts: 1, wakeAt: T + 5 });
    // Drawing the status keeps it (the message says it); the next try ends it.
    expect(transition(waiting, { type: "status_posted", ts: "1.1" }, T).waiting).toBe(
      "slack_files",
    );
    expect(
      transition(waiting, { type: "download_attempt", tempPath: "/t/a", relay: false }, T).waiting,
    ).toBeUndefined();
    expect(transition(waiting, { type: "downloaded" }, T).waiting).toBeUndefined();
    // A later wait of another kind, or of no named kind, replaces it.
    const full = transition(waiting, { type: "retry_later", wakeAt: T, waiting: "disk_full" }, T);
    expect(full.waiting).toBe("disk_full");
    expect(transition(full, { type: "retry_later", wakeAt: T }, T).waiting).toBeUndefined();
    // Failing for good leaves no wait behind (the failure says it all).
    const failed = transition(
      full,
      { type: "failed", failure: { code: "disk_full" }, retryable: true },
      T,
    );
    expect(failed.waiting).toBeUndefined();
  });
});

describe("the first status post's checkpoint", () => {
  it("is saved before the post, kept across stages, and cleared once its ts is saved", () => {
    const intended = transition(queued, { type: "status_posting", at: T }, T);
    expect(intended.statusPostingAt).toBe(T);
    const moved = transition(intended, { type: "download_started", tempPath: "/tmp/a" }, T);
    expect(moved).toMatchObject({ stage: "downloading", statusPostingAt: T });
    const posted = transition(moved, { type: "status_posted", ts: "1.5" }, T);
    expect(posted.statusTs).toBe("1.5");
    expect(posted.statusPostingAt).toBeUndefined();
  });
});

describe("decideFailure names what the job waits for, and what it fails with", () => {
  it("a download Slack's file server did not answer: waits, then download_unavailable", () => {
    const error = new SlackPortError("Slack file download failed: 503", {
      transient: true,
      failure: "download_unavailable",
      waiting: "slack_files",
    });
    expect(decideFailure(error, 0, policy)).toEqual({
      kind: "retry_later",
      delayMs: 1000,
      waiting: "slack_files",
    });
    expect(decideFailure(error, 2, policy)).toEqual({
      kind: "fail",
      failure: { code: "download_unavailable" },
      retryable: true,
    });
  });

  it("a file Slack refuses: fails at once with its own code, Retry offered", () => {
    const error = new SlackPortError("Slack file download failed: 404", {
      transient: false,
      failure: "download_refused",
    });
    expect(decideFailure(error, 0, policy)).toEqual({
      kind: "fail",
      failure: { code: "download_refused" },
      retryable: true,
    });
  });

  it("a full disk anywhere (a raw write error, however wrapped) waits as disk_full", () => {
    const wrapped = new Error("FFmpeg failed", { cause: enospc() });
    expect(isDiskFull(wrapped)).toBe(true);
    expect(isDiskFull(new Error("EIO"))).toBe(false);
    expect(decideFailure(wrapped, 0, policy)).toMatchObject({ waiting: "disk_full" });
    expect(decideFailure(enospc(), 2, policy)).toMatchObject({ failure: { code: "disk_full" } });
  });

  it("the Note Service not answering waits as note_service; Slack's API names no wait", () => {
    expect(decideFailure(new NoteTakerTransientError("503"), 0, policy)).toMatchObject({
      waiting: "note_service",
    });
    const slack = decideFailure(new SlackPortError("503", { transient: true }), 0, policy);
    expect(slack).toEqual({ kind: "retry_later", delayMs: 1000 });
  });
});

describe("DiskFullWatch", () => {
  it("keeps when the disk was first found full, until a write goes through", () => {
    let now = 10;
    const watch = new DiskFullWatch(() => now);
    expect(watch.fullSince).toBeUndefined();
    watch.markFull();
    now = 20;
    watch.markFull();
    expect(watch.fullSince).toBe(10);
    watch.markWritten();
    expect(watch.fullSince).toBeUndefined();
  });
});
