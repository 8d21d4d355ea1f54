import type { Button, SectionBlock } from "@slack/types";
import { describe, expect, it } from "vitest";
import type { Job } from "../../../src/jobs/index.ts";
import { ACTIONS } from "../../../src/slack/ids.ts";
import { LOCALES } from "../../../src/slack/messages/catalog.ts";
import { buildAppHome, MAX_HOME_JOBS } from "../../../src/slack/views/app-home.ts";
import { expectHomeLimits, expectNoLiveMentions } from "../../../support/helpers/slack-limits.ts";
import { done, everyStage, failed, NOW, naming, T0, transcribing } from "./fixtures.ts";

const permalink = "https://acme.slack.com/archives/C1/p1700000000000100";

function sections(view: { blocks: { type: string }[] }): SectionBlock[] {
  return view.blocks.filter((b): b is SectionBlock => b.type === "section");
}

describe("buildAppHome", () => {
  it.each(LOCALES)("stays within Slack's limits (%s)", (locale) => {
    const view = buildAppHome(
      everyStage.map((job) => ({ job, permalink })),
      { locale, now: NOW },
    );
    expectHomeLimits(view);
    expectNoLiveMentions(view);
  });

  it("lists jobs newest first with file name, stage, when and a link to the thread", () => {
    const older = { ...done(), id: "job-old", createdAt: T0 - 2 * 3_600_000 };
    const newer = { ...transcribing({ fraction: 0.4, label: "40%" }), id: "job-new" } as Job;
    const view = buildAppHome([{ job: older, permalink }, { job: newer }], {
      locale: "en",
      now: NOW,
    });
    const [first, second] = sections(view);
    expect(first?.text?.text).toBe("*weekly-sync.m4a*\nTranscribing… 40%");
    expect(first?.accessory).toBeUndefined();
    expect(second?.text?.text).toBe("*weekly-sync.m4a*\nNotes ready");
    const link = second?.accessory as Button;
    expect(link).toMatchObject({ action_id: ACTIONS.openThread, url: permalink, value: "job-old" });
    expect(link.text.text).toBe("Open thread");
    const json = JSON.stringify(view.blocks);
    expect(json).toContain("Started 3 minutes ago");
    expect(json).toContain("Started 2 hours ago");
  });

  it("says why a job failed and who waits for names, in Vietnamese too", () => {
    const view = buildAppHome([{ job: failed({ code: "no_speech" }, false) }, { job: naming() }], {
      locale: "vi",
      now: NOW,
    });
    const json = JSON.stringify(view.blocks);
    expect(json).toContain("Thất bại: Tôi không nghe thấy lời nói nào trong bản ghi âm.");
    expect(json).toContain("Đang chờ đặt tên người nói");
    expect(json).toContain("Biên bản cuộc họp của bạn");
  });

  it("has a clear empty state", () => {
    const view = buildAppHome([], { locale: "en", now: NOW });
    expectHomeLimits(view);
    expect(JSON.stringify(view.blocks)).toContain("No meeting notes yet.");
  });

  it("shows as many jobs as fit and says how many there are", () => {
    const items = Array.from({ length: 80 }, (_, i) => ({
      job: { ...done(), id: `job-${i}`, createdAt: T0 + i } as Job,
      permalink,
    }));
    const view = buildAppHome(items, { locale: "en", now: NOW });
    expectHomeLimits(view);
    expect(sections(view)).toHaveLength(MAX_HOME_JOBS);
    expect((sections(view)[0]?.accessory as Button | undefined)?.value).toBe("job-79");
    expect(JSON.stringify(view.blocks)).toContain(`Showing the latest ${MAX_HOME_JOBS} of 80.`);
  });

  it("puts a notice of the bot's lost storage first, naming the recordings, and stays within 100 blocks", () => {
    const items = Array.from({ length: 80 }, (_, i) => ({
      job: { ...done(), id: `job-${i}`, createdAt: T0 + i } as Job,
      permalink,
    }));
    const notice = { at: NOW - 2 * 3_600_000, files: ["standup.m4a", "<!here>.mp3"] };
    for (const locale of LOCALES) {
      const view = buildAppHome(items, { locale, now: NOW, notice });
      expectHomeLimits(view);
      expectNoLiveMentions(view);
      const [first] = sections(view);
      expect(first?.accessory).toBeUndefined();
      expect(first?.text?.text).toContain("*standup.m4a*, *&lt;!here&gt;.mp3*");
      expect(sections(view)).toHaveLength(MAX_HOME_JOBS); // the notice, and one job fewer
    }
    const en = sections(buildAppHome([], { locale: "en", now: NOW, notice }))[0]?.text?.text;
    expect(en).toBe(
      ":warning: The bot's storage was reset 2 hours ago, and the notes of *standup.m4a*, *&lt;!here&gt;.mp3* were lost; upload them again.",
    );
  });

  it("escapes file names and drops a link that is not https", () => {
    const evil = { ...done(), source: { ...done().source, filename: "<!here> & co.m4a" } };
    const view = buildAppHome([{ job: evil, permalink: "javascript:alert(1)" }], {
      locale: "en",
      now: NOW,
    });
    expectNoLiveMentions(view);
    expect(sections(view)[0]?.text?.text).toContain("&lt;!here&gt; &amp; co.m4a");
    expect(sections(view)[0]?.accessory).toBeUndefined();
  });
});
