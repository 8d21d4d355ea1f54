import { describe, expect, it } from "vitest";
import type { Job } from "../../../src/jobs/index.ts";
import { LOCALES, t } from "../../../src/slack/messages/catalog.ts";
import {
  buildReviewMessage,
  buildReviewReminder,
  type ReviewMessageState,
} from "../../../src/slack/views/review-message.ts";
import { buildStatusMessage } from "../../../src/slack/views/status-message.ts";
import { origin, source } from "../../../support/helpers/jobs-kit.ts";
import {
  expectMessageLimits,
  expectNoLiveMentions,
} from "../../../support/helpers/slack-limits.ts";

const ALICE = "U0ALICE01";
const job = {
  id: "job-1",
  stage: "reviewing",
  createdAt: 0,
  updatedAt: 0,
  stageStartedAt: 0,
  attempts: 0,
  origin: origin({ userId: ALICE, channelId: "C0E2E0001" }),
  source: source({ filename: `<!channel> <@U0BOB0001> ${"long name ".repeat(40)}.m4a` }),
  options: { review: true },
  delivery: 1,
  expiresAt: Date.UTC(2026, 11, 24),
} as unknown as Job;

const states: ReviewMessageState[] = [
  { state: "coming" },
  { state: "ready" },
  { state: "replaced" },
  { state: "expired" },
  { state: "posted", by: ALICE },
  { state: "discarded", by: "U0ADMIN01" },
];

describe("the review's messages", () => {
  it.each(LOCALES)("stay within Slack's limits and ping nobody from outside (%s)", (locale) => {
    for (const at of states) {
      const message = buildReviewMessage(job, at, { locale, expiresAt: Date.UTC(2026, 11, 24) });
      expectMessageLimits(message);
      // When it expires: Slack's date formatting, in each reader's own time zone.
      const date = `<!date^${Date.UTC(2026, 11, 24) / 1000}^{date_long_pretty}|2026-12-24>`;
      expectNoLiveMentions(message, [`<@${ALICE}>`, "<@U0ADMIN01>", "<#C0E2E0001>", date]);
      expect(message.metadata.event_payload).toEqual({
        job_id: "job-1",
        kind: "review",
        delivery: 1,
      });
    }
    const reminder = buildReviewReminder(job, locale);
    expectMessageLimits(reminder);
    expectNoLiveMentions(reminder, ["<#C0E2E0001>"]);
    expect(reminder.metadata.event_payload.kind).toBe("review_reminder");
  });

  it("names a direct message the notes came from in words, not as a channel link", () => {
    const fromDm = { ...job, origin: origin({ userId: ALICE, channelId: "D0ALICEDM1" }) } as Job;
    const { text } = buildReviewMessage(fromDm, { state: "expired" }, { locale: "en" });
    expect(text).toBe(t("en", "review.expired", { channel: t("en", "review.conversation") }));
  });

  it("leaves the thread's status with its sentence only while the note waits for review", () => {
    const status = buildStatusMessage(job, { locale: "vi", now: 0 });
    expect(status.text).toBe(t("vi", "status.reviewing", { user: `<@${ALICE}>` }));
    expect(status.blocks.map((b) => b.type)).toEqual(["section", "context"]);
  });
});
