import { describe, expect, it } from "vitest";
import {
  canTransition,
  channelSettingsSchema,
  IllegalTransitionError,
  type Job,
  type JobEvent,
  jobSchema,
  transition,
  uploadOptions,
} from "../../src/jobs/index.ts";
import { inline } from "../../src/jobs/model/stored.ts";
import { origin, source } from "../../support/helpers/jobs-kit.ts";

/** Review before posting (issue 26): the transitions into, within and out of `reviewing`. */

const T = 1_000;
const DAY = 24 * 60 * 60_000;
const dialog = [{ speaker_id: "speaker_1", start_seconds: 0, end_seconds: 3, text: "Hi." }];
const speakers = [{ speakerId: "speaker_1", seconds: 3, share: 1 }];
const note = {
  dialog: inline(dialog),
  speakers,
  quotes: inline({ speaker_1: [{ atSeconds: 0, text: "Hi." }] }),
  speakerMap: [],
};
const common = {
  id: "job-1",
  createdAt: T,
  updatedAt: T,
  stageStartedAt: T,
  wakeAt: T,
  attempts: 0,
  origin: origin(),
  source: source({ fileId: "F1" }),
  options: { review: true },
};
const place = { channelId: "D0ALICE01", ts: "1700000001.000001" };
const poll = { pollAttempt: 0, progress: null };

const writing: Job = { ...common, stage: "writing", note, task: poll, relinks: 0, delivery: 1 };
const reviewing: Job = {
  ...common,
  stage: "reviewing",
  note,
  markdown: inline("# N"),
  docxUrl: "https://r.test/n",
  relinks: 0,
  delivery: 1,
  expiresAt: T + 30 * DAY,
  postedParts: 0,
};
const ready: Job = {
  ...reviewing,
  review: place,
  opened: true,
  postedParts: 2,
  docxPath: "/tmp/job-1/notes.docx",
  docxFileId: "F0DMDOCX",
  transcriptFileIds: ["F0T1", "F0T2"],
  ready: true,
  wakeAt: T + 29 * DAY,
} as Job;
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

const fixtures = { writing, reviewing, ready, delivering } as const;
type Fixture = keyof typeof fixtures;
const BOTH: Partial<Record<Fixture, Job["stage"] | "same">> = { reviewing: "same", ready: "same" };

/** For each event: the fixtures it is legal in, and the stage it leads to there. */
const legal: [JobEvent, Partial<Record<Fixture, Job["stage"] | "same">>][] = [
  [
    { type: "note_written", markdown: "# N", docxUrl: "https://r.test/n", reviewUntil: T + DAY },
    { writing: "reviewing" },
  ],
  [
    { type: "note_written", markdown: "# N", docxUrl: "https://r.test/n" },
    { writing: "delivering" },
  ],
  [{ type: "review_opening", at: T }, BOTH],
  [{ type: "review_opened", ...place }, BOTH],
  [
    { type: "part_posting", index: 0 },
    { ...BOTH, delivering: "same" },
  ],
  [
    { type: "part_posted", index: 0 },
    { ...BOTH, delivering: "same" },
  ],
  [
    { type: "docx_downloaded", docxPath: "/tmp/x" },
    { ...BOTH, delivering: "same" },
  ],
  [{ type: "docx_uploading" }, { ...BOTH, delivering: "same" }],
  [
    { type: "docx_uploaded", fileId: "F9" },
    { ...BOTH, delivering: "same" },
  ],
  [{ type: "transcript_uploading" }, { ...BOTH, delivering: "same" }],
  [
    { type: "transcript_uploaded", fileIds: ["F1"] },
    { ...BOTH, delivering: "same" },
  ],
  [
    { type: "delivery_reconciled", postedParts: 1, docxFileId: undefined },
    { ...BOTH, delivering: "same" },
  ],
  // The link died before anything went to the review: the note is written again.
  [{ type: "docx_link_expired" }, { reviewing: "writing", delivering: "writing" }],
  [{ type: "review_ready", wakeAt: T + DAY }, BOTH],
  [{ type: "review_reminding", at: T }, BOTH],
  [{ type: "review_reminded", wakeAt: T + DAY }, BOTH],
  // Only a note the person could read in full may be posted, discarded or rewritten.
  [{ type: "review_posted", by: "U1" }, { ready: "delivering" }],
  [{ type: "review_discarded", by: "U1" }, { ready: "discarded" }],
  [{ type: "regenerate", contextText: "new" }, { ready: "writing" }],
  [{ type: "review_expired" }, { reviewing: "discarded", ready: "discarded" }],
  [
    { type: "canceled", by: "U1" },
    { writing: "canceled", reviewing: "canceled", ready: "canceled", delivering: "canceled" },
  ],
];

describe("review before posting: transitions", () => {
  const cases = legal.flatMap(([event, table]) =>
    (Object.keys(fixtures) as Fixture[]).map((fixture) => ({ event, fixture, to: table[fixture] })),
  );

  it.each(cases.filter((c) => c.to !== undefined))(
    "$fixture + $event.type → $to",
    ({ event, fixture, to }) => {
      const from = fixtures[fixture];
      const next = transition(from, event, T + 10);
      expect(next.stage).toBe(to === "same" ? from.stage : to);
      expect(jobSchema.safeParse(next).success).toBe(true);
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

  it("sends a written note to its review until the time the writing step gave", () => {
    const event = { type: "note_written", markdown: "# N", docxUrl: "u", reviewUntil: T + DAY };
    const next = transition(writing, event as JobEvent, T + 10);
    expect(next).toMatchObject({ stage: "reviewing", expiresAt: T + DAY, postedParts: 0 });
    expect(next).not.toHaveProperty("ready");
  });

  it("keeps where the review is across the stages, so its buttons can be checked", () => {
    const opened = transition(reviewing, { type: "review_opened", ...place }, T + 10);
    expect(opened).toMatchObject({ review: place, opened: true, wakeAt: T + 10 });
    const rewritten = transition(ready, { type: "regenerate", contextText: "x" }, T + 10);
    expect(rewritten).toMatchObject({ stage: "writing", delivery: 2, review: place });
  });

  it("waits for the person with no wake-up but the next reminder or expiry", () => {
    const waiting = transition(reviewing, { type: "review_ready", wakeAt: T + 29 * DAY }, T + 10);
    expect(waiting).toMatchObject({ ready: true, wakeAt: T + 29 * DAY, attempts: 0 });
    const reminding = transition(waiting, { type: "review_reminding", at: T + 29 * DAY }, T);
    expect(reminding).toMatchObject({ remindingAt: T + 29 * DAY });
    const reminded = transition(reminding, { type: "review_reminded", wakeAt: T + 30 * DAY }, T);
    expect(reminded).toMatchObject({ reminded: true, wakeAt: T + 30 * DAY });
    expect(reminded).not.toHaveProperty("remindingAt");
  });

  it("posts the reviewed note and its DOCX, but not the review's own files, to the thread", () => {
    const posted = transition(ready, { type: "review_posted", by: "U1" }, T + 10);
    expect(posted).toMatchObject({
      stage: "delivering",
      markdown: { inline: "# N" },
      docxPath: "/tmp/job-1/notes.docx",
      delivery: 1,
      postedParts: 0,
      review: place,
      wakeAt: T + 10,
    });
    expect(posted).not.toHaveProperty("docxFileId");
    expect(posted).not.toHaveProperty("transcriptFileIds");
  });

  it("ends a discarded or expired note with who discarded it, and nothing left to do", () => {
    const discarded = transition(ready, { type: "review_discarded", by: "U2" }, T + 10);
    expect(discarded).toMatchObject({ stage: "discarded", discardedBy: "U2", finishedAt: T + 10 });
    expect(discarded).not.toHaveProperty("wakeAt");
    expect(discarded).not.toHaveProperty("markdown");
    const expired = transition(ready, { type: "review_expired" }, T + 10);
    expect(expired).toMatchObject({ stage: "discarded", finishedAt: T + 10 });
    expect(expired).not.toHaveProperty("discardedBy");
  });

  it("retries a failed review where it stopped, and never rewrites a note once a part is out", () => {
    const failed = transition(
      reviewing,
      { type: "failed", failure: { code: "review_unreachable" }, retryable: true },
      T,
    );
    expect(failed).toMatchObject({ stage: "failed", failedStage: "reviewing" });
    expect(transition(failed, { type: "retried" }, T + 10)).toMatchObject({
      stage: "reviewing",
      wakeAt: T + 10,
    });
    expect(
      canTransition({ ...reviewing, postedParts: 1 } as Job, { type: "docx_link_expired" }),
    ).toBe(false);
  });
});

describe("review before posting: the option", () => {
  it("reads records and settings saved before it as off", () => {
    const { options: _, ...before } = delivering;
    expect(jobSchema.parse({ ...before, options: {} }).options.review).toBeUndefined();
    expect(channelSettingsSchema.parse({ autoTranscribe: true }).review).toBe(false);
  });

  it("gives uploads in a channel with review on a job that reviews", () => {
    const on = channelSettingsSchema.parse({ autoTranscribe: true, review: true });
    expect(uploadOptions(on, "agenda")).toMatchObject({ review: true, contextText: "agenda" });
    const off = channelSettingsSchema.parse({ autoTranscribe: true });
    expect(uploadOptions(off, undefined)).not.toHaveProperty("review");
  });
});
