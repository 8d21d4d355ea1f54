import type { SectionBlock } from "@slack/types";
import { describe, expect, it } from "vitest";
import { type Job, WAIT_REASONS } from "../../../src/jobs/index.ts";
import { LOCALES, t } from "../../../src/slack/messages/catalog.ts";
import { buildStatusMessage } from "../../../src/slack/views/status-message.ts";
import { expectMessageLimits } from "../../../support/helpers/slack-limits.ts";
import { downloading, failed, NOW } from "./fixtures.ts";

const body = (job: Job, locale: (typeof LOCALES)[number] = "en") =>
  (buildStatusMessage(job, { locale, now: NOW }).blocks[0] as SectionBlock).text?.text ?? "";

describe("the status message of a job waiting to try again", () => {
  it.each(LOCALES)("says why under the stage, in one sentence per reason (%s)", (locale) => {
    for (const waiting of WAIT_REASONS) {
      const job: Job = { ...downloading, waiting };
      const sentence = t(locale, `status.waiting.${waiting}`);
      expect(body(job, locale).split("\n")).toEqual([
        t(locale, "status.downloading", { file: "weekly-sync.m4a" }),
        sentence,
      ]);
      expectMessageLimits(buildStatusMessage(job, { locale, now: NOW }));
    }
  });

  it("names the cause and what to do: Slack's file server, a full disk an admin must free", () => {
    expect(body({ ...downloading, waiting: "slack_files" })).toContain(
      "Slack's file server is not answering",
    );
    expect(body({ ...downloading, waiting: "disk_full" })).toContain(
      "The disk I keep recordings on is full: I will try again on my own once an admin frees up space.",
    );
  });

  it("says nothing of a wait once the job has failed: the failure's sentence says it", () => {
    const job = { ...failed({ code: "disk_full" }, true), waiting: "disk_full" } as Job;
    const text = body(job);
    expect(text).not.toContain("I will try again on my own");
    expect(text).toContain(
      "The disk I keep recordings on is full; an admin must free up space first.",
    );
    expect(text).toContain("Retry picks up where it stopped.");
  });

  it("gives each download failure its own cause, never 'Slack did not accept'", () => {
    const sentences = (["download_refused", "download_unavailable", "download_cut"] as const).map(
      (code) => body(failed({ code }, true)),
    );
    expect(sentences[0]).toContain("invite me to the channel where it was shared");
    expect(sentences[1]).toContain("Slack's file server did not answer for a long time");
    expect(sentences[2]).toContain("kept being cut off");
    for (const text of sentences) expect(text).not.toContain("did not accept a message");
  });
});
