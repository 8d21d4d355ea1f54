import { describe, expect, it } from "vitest";
import {
  canTransition,
  IllegalTransitionError,
  type Job,
  type JobEvent,
  transition,
} from "../../src/jobs/index.ts";
import { inline } from "../../src/jobs/model/stored.ts";
import { origin, source } from "../../support/helpers/jobs-kit.ts";

const T = 1_000;
const dialog = [{ speaker_id: "speaker_1", start_seconds: 0, end_seconds: 3, text: "Hi." }];
const speakers = [{ speakerId: "speaker_1", seconds: 3, share: 1 }];
const quotes = { speaker_1: [{ atSeconds: 0, text: "Hi." }] };
const note = { dialog: inline(dialog), speakers, quotes: inline(quotes), speakerMap: [] };
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
const poll = { pollAttempt: 0, progress: null };

const queued: Job = { ...common, stage: "queued" };
const downloading: Job = { ...common, stage: "downloading", tempPath: "/tmp/a.m4a" };
const transcribing: Job = { ...common, stage: "transcribing", tempPath: "/tmp/a.m4a", audio: poll };
const naming: Job = {
  ...common,
  stage: "naming",
  dialog: inline(dialog),
  speakers,
  quotes: inline(quotes),
};
const writing: Job = { ...common, stage: "writing", note, task: poll, relinks: 0, delivery: 1 };
const delivering: Job = {
  ...common,
  stage: "delivering",
  note,
  markdown: inline("# N"),
  docxUrl: "https://r.test/n",
  relinks: 0,
  delivery: 1,
  postedParts: 0,
};
const { wakeAt: _w, ...finished } = common;
const done: Job = {
  ...finished,
  stage: "done",
  note,
  markdown: inline("# N"),
  postedParts: 1,
  delivery: 1,
  finishedAt: T,
};
const failedRetryable: Job = {
  ...finished,
  stage: "failed",
  failedStage: "writing",
  failure: { code: "task_failed", detail: "x" },
  retryable: true,
  resume: writing as Extract<Job, { stage: "writing" }>,
  finishedAt: T,
};
const failedFinal: Job = { ...failedRetryable, retryable: false };
const canceled: Job = {
  ...finished,
  stage: "canceled",
  canceledStage: "queued",
  canceledBy: "U1",
  finishedAt: T,
};

const fixtures = {
  queued,
  downloading,
  transcribing,
  naming,
  writing,
  delivering,
  done,
  failedRetryable,
  failedFinal,
  canceled,
} as const;
type Fixture = keyof typeof fixtures;
const ACTIVE: Fixture[] = [
  "queued",
  "downloading",
  "transcribing",
  "naming",
  "writing",
  "delivering",
];

/** For each event: the fixtures it is legal in, and the stage it leads to there. */
const legal: [JobEvent, Partial<Record<Fixture, Job["stage"] | "same">>][] = [
  [
    { type: "status_posted", ts: "1.2" },
    Object.fromEntries(Object.keys(fixtures).map((f) => [f, "same"])),
  ],
  [{ type: "download_started", tempPath: "/tmp/x" }, { queued: "downloading" }],
  [{ type: "downloaded" }, { downloading: "transcribing" }],
  [
    { type: "download_attempt", tempPath: "/tmp/x-1", relay: false },
    { downloading: "downloading" },
  ],
  [{ type: "source_missing", tempPath: "/tmp/y" }, { transcribing: "downloading" }],
  [{ type: "audio_submitting" }, { transcribing: "transcribing" }],
  [{ type: "audio_submitted", taskId: "a1", wakeAt: T }, { transcribing: "transcribing" }],
  [{ type: "audio_polled", progress: null, wakeAt: T }, { transcribing: "transcribing" }],
  [{ type: "transcribed", dialog, speakers, quotes }, { transcribing: "naming" }],
  [{ type: "awaiting_names" }, { naming: "naming" }],
  [
    { type: "names_given", speakerMap: [{ speakerId: "speaker_1", name: "Lan" }] },
    { naming: "writing" },
  ],
  [{ type: "naming_skipped" }, { naming: "writing" }],
  [{ type: "note_submitting" }, { writing: "writing" }],
  [{ type: "note_submitted", taskId: "n1", wakeAt: T }, { writing: "writing" }],
  [{ type: "note_polled", wakeAt: T }, { writing: "writing" }],
  [
    { type: "note_written", markdown: "# N", docxUrl: "https://r.test/n" },
    { writing: "delivering" },
  ],
  [{ type: "docx_downloaded", docxPath: "/tmp/n.docx" }, { delivering: "delivering" }],
  [{ type: "docx_link_expired" }, { delivering: "writing" }],
  [{ type: "part_posting", index: 0 }, { delivering: "delivering" }],
  [{ type: "part_posted", index: 0 }, { delivering: "delivering" }],
  [{ type: "docx_uploading" }, { delivering: "delivering" }],
  [{ type: "docx_uploaded", fileId: "F9" }, { delivering: "delivering" }],
  [
    { type: "delivery_reconciled", postedParts: 1, docxFileId: undefined },
    { delivering: "delivering" },
  ],
  [{ type: "delivered" }, { delivering: "done" }],
  [{ type: "retry_later", wakeAt: T + 5 }, Object.fromEntries(ACTIVE.map((f) => [f, "same"]))],
  [
    { type: "failed", failure: { code: "internal" }, retryable: true },
    Object.fromEntries(ACTIVE.map((f) => [f, "failed"])),
  ],
  [{ type: "canceled", by: "U1" }, Object.fromEntries(ACTIVE.map((f) => [f, "canceled"]))],
  [{ type: "retried" }, { failedRetryable: "writing" }],
  [
    { type: "regenerate", contextText: "new" },
    { done: "writing", failedRetryable: "writing", failedFinal: "writing" },
  ],
];

describe("job transitions", () => {
  const cases = legal.flatMap(([event, table]) =>
    (Object.keys(fixtures) as Fixture[]).map((fixture) => ({ event, fixture, to: table[fixture] })),
  );

  it.each(cases.filter((c) => c.to !== undefined))(
    "$fixture + $event.type → $to",
    ({ event, fixture, to }) => {
      const from = fixtures[fixture];
      const next = transition(from, event, T + 10);
      expect(next.stage).toBe(to === "same" ? from.stage : to);
      expect(next.updatedAt).toBe(T + 10);
      expect(canTransition(from, event)).toBe(true);
    },
  );

  it.each(cases.filter((c) => c.to === undefined))(
    "$fixture + $event.type is illegal",
    ({ event, fixture }) => {
      const from = fixtures[fixture];
      expect(() => transition(from, event, T + 10)).toThrow(IllegalTransitionError);
      expect(canTransition(from, event)).toBe(false);
    },
  );

  it("keeps what a later stage needs and drops what it no longer needs", () => {
    const submitted = transition(
      transcribing,
      { type: "audio_submitted", taskId: "a1", wakeAt: 5 },
      T,
    );
    expect(submitted).toMatchObject({ audio: { taskId: "a1" }, wakeAt: 5 });
    expect("tempPath" in submitted).toBe(false);
    const waiting = transition(naming, { type: "awaiting_names" }, T);
    expect(waiting.wakeAt).toBeUndefined();
    const named = transition(
      { ...naming, options: { contextText: "agenda", templateId: "tpl" } },
      { type: "names_given", speakerMap: [{ speakerId: "speaker_1", name: "Lan" }] },
      T,
    );
    expect(named).toMatchObject({
      stage: "writing",
      note: { contextText: "agenda", templateId: "tpl", speakerMap: [{ name: "Lan" }] },
    });
    const delivered = transition(
      { ...delivering, postedParts: 2, docxPath: "/tmp/x" },
      { type: "delivered" },
      T,
    );
    expect(delivered).toMatchObject({ stage: "done", postedParts: 2, finishedAt: T });
    expect("docxPath" in delivered || "wakeAt" in delivered).toBe(false);
  });

  it("never rewrites a note for an expired link once a part is out, nor endlessly", () => {
    for (const from of [
      { ...delivering, postedParts: 1 },
      { ...delivering, relinks: 3 },
    ] as Job[]) {
      expect(canTransition(from, { type: "docx_link_expired" })).toBe(false);
    }
    // A DOCX saved on a disk this replica does not have is fetched again; if the link has
    // expired by then, the note is rewritten as long as nothing was posted yet.
    const lostDisk = { ...delivering, docxPath: "/elsewhere/n.docx" } as Job;
    expect(transition(lostDisk, { type: "docx_link_expired" }, T).stage).toBe("writing");
  });

  it("reading the thread after a crash is no progress: attempts keep counting", () => {
    const retrying = { ...delivering, attempts: 2, postedParts: 1, postingPart: 1 } as Job;
    const event = { type: "delivery_reconciled", postedParts: 1, docxFileId: undefined } as const;
    expect(transition(retrying, event, T).attempts).toBe(2);
  });

  it("finding in the thread a post whose answer was lost counts as its success", () => {
    const retrying = { ...delivering, attempts: 2, postedParts: 1, postingPart: 1 } as Job;
    const part = { type: "delivery_reconciled", postedParts: 2, docxFileId: undefined } as const;
    expect(transition(retrying, part, T).attempts).toBe(0);
    const docx = { type: "delivery_reconciled", postedParts: 1, docxFileId: "F1" } as const;
    expect(transition({ ...retrying, uploadingDocx: true } as Job, docx, T).attempts).toBe(0);
  });

  it("downloads a recording again when it is not on this disk, unless already submitted", () => {
    const event = { type: "source_missing", tempPath: "/here/a.m4a" } as const;
    expect(transition(transcribing, event, T)).toMatchObject({
      stage: "downloading",
      tempPath: "/here/a.m4a",
    });
    const submitted = { ...transcribing, audio: { ...poll, taskId: "a1" } } as Job;
    expect(canTransition(submitted, event)).toBe(false);
  });

  it("retry starts a transcription over from the download and a note from a fresh task", () => {
    const failedTranscribing = {
      ...failedRetryable,
      failedStage: "transcribing",
      resume: { ...transcribing, audio: { ...poll, taskId: "a1" } },
    } as Job;
    expect(transition(failedTranscribing, { type: "retried" }, T).stage).toBe("queued");
    const retried = transition(failedRetryable, { type: "retried" }, T);
    expect(retried).toMatchObject({ stage: "writing", task: { pollAttempt: 0 }, attempts: 0 });
    expect(retried.stage === "writing" && retried.task.taskId).toBeUndefined();
  });

  it("regenerate keeps the dialog and replaces only what changed", () => {
    const next = transition(
      done,
      { type: "regenerate", speakerMap: [{ speakerId: "speaker_1", name: "Hoa" }] },
      T,
    );
    expect(next).toMatchObject({
      stage: "writing",
      note: { dialog: { inline: dialog }, speakerMap: [{ name: "Hoa" }] },
    });
  });
});
