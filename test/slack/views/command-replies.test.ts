import { describe, expect, it } from "vitest";
import type { Job } from "../../../src/jobs/index.ts";
import { LOCALES } from "../../../src/slack/messages/index.ts";
import {
  buildCancelReply,
  buildChannelStatus,
  buildCommandRefusal,
  buildHelpMessage,
  buildRefusal,
  buildSettingsSaved,
  buildSkippedFiles,
  buildUnknownCommand,
  MAX_STATUS_JOBS,
} from "../../../src/slack/views/index.ts";
import { done, everyStage, NOW, queued, T0 } from "./fixtures.ts";
import { expectMessageLimits, expectNoLiveMentions } from "./slack-limits.ts";

describe("buildHelpMessage", () => {
  it.each(LOCALES)("lists every subcommand (%s)", (locale) => {
    const help = buildHelpMessage(locale);
    expectMessageLimits(help);
    const json = JSON.stringify(help.blocks);
    for (const sub of ["help", "status", "settings", "cancel"]) {
      expect(json).toContain(`/meeting-notes ${sub}`);
    }
    expect(json).toContain("m4a");
  });

  it("answers an unknown subcommand with the help", () => {
    const reply = buildUnknownCommand("<!channel>", "en");
    expectMessageLimits(reply);
    expectNoLiveMentions(reply);
    expect(JSON.stringify(reply.blocks)).toContain("/meeting-notes status");
  });
});

describe("buildChannelStatus", () => {
  it.each(LOCALES)("lists the channel's jobs, newest first (%s)", (locale) => {
    const jobs = everyStage.map((job, i) => ({ ...job, id: `job-${i}`, createdAt: T0 + i }) as Job);
    const status = buildChannelStatus(jobs, { locale, now: NOW });
    expectMessageLimits(status);
    expectNoLiveMentions(status);
    expect(status.blocks).toHaveLength(1 + jobs.length);
  });

  it("says where each job stands", () => {
    const status = buildChannelStatus([queued, { ...done(), createdAt: T0 + 1 }], {
      locale: "en",
      now: NOW,
    });
    expect(status.text).toBe("Meeting notes in this channel");
    const json = JSON.stringify(status.blocks);
    expect(json.indexOf("Notes ready")).toBeLessThan(json.indexOf("Queued"));
    expect(json).toContain("*weekly-sync.m4a* · 3 minutes ago");
  });

  it("has an empty state and a cap", () => {
    expect(buildChannelStatus([], { locale: "en", now: NOW }).text).toMatch(/^No meeting notes/);
    const many = Array.from({ length: 70 }, (_, i) => ({ ...queued, id: `j${i}` }) as Job);
    const status = buildChannelStatus(many, { locale: "en", now: NOW });
    expectMessageLimits(status);
    expect(JSON.stringify(status.blocks)).toContain(`…and ${70 - MAX_STATUS_JOBS} older`);
  });
});

describe("buildRefusal", () => {
  it("says why an upload was not taken, naming the formats or the size", () => {
    expect(buildRefusal("unsupported_format", "notes.pdf", "en").text).toBe(
      "notes.pdf is not a recording I can use. Upload one of these formats: mp3, mp4, wav, m4a, ogg, flac, aac, opus, webm.",
    );
    expect(buildRefusal("too_large", "all-hands.wav", "en").text).toMatch(/over 300 MB/);
    expect(buildRefusal("empty", "x.m4a", "vi").text).toBe("x.m4a trống.");
  });

  it.each(LOCALES)("escapes the file name (%s)", (locale) => {
    for (const reason of ["unsupported_format", "too_large", "empty"] as const) {
      const reply = buildRefusal(reason, "<!channel> & @here.pdf", locale);
      expectMessageLimits(reply);
      expectNoLiveMentions(reply);
      expect(JSON.stringify(reply.blocks)).toContain("&lt;!channel&gt; &amp;");
    }
  });
});

describe("buildSkippedFiles", () => {
  it("names the files it skipped", () => {
    const reply = buildSkippedFiles(["notes.txt", "slides.pdf"], "en");
    expect(reply.text).toBe(
      "I skipped notes.txt, slides.pdf: not recordings I can use. The recordings in this message are being turned into notes.",
    );
    expect(buildSkippedFiles(["b.txt"], "vi").text).toContain("đã bỏ qua b.txt");
  });

  it("stays short and safe with many odd names", () => {
    const names = Array.from({ length: 30 }, (_, i) => `<@U${i}>-${"n".repeat(300)}.m4a`);
    const reply = buildSkippedFiles(names, "en");
    expectMessageLimits(reply);
    expectNoLiveMentions(reply);
    expect(reply.text).toContain("+10");
  });
});

describe("command replies", () => {
  it("explains a refused command", () => {
    expect(buildCommandRefusal("not_found", "names", "en").text).toMatch(/cannot find that job/);
    expect(buildCommandRefusal("wrong_stage", "names", "en").text).toBe(
      "That job is no longer waiting for names.",
    );
    expect(buildCommandRefusal("busy", "cancel", "vi").text).toBe(
      "Tác vụ đó đang bận. Hãy thử lại sau giây lát.",
    );
    for (const command of ["names", "cancel", "retry", "regenerate"] as const) {
      expectMessageLimits(buildCommandRefusal("wrong_stage", command, "vi"));
    }
  });

  it("confirms a cancel or says there was nothing to cancel", () => {
    expect(buildCancelReply(queued, "en").text).toBe("Canceled the notes for weekly-sync.m4a.");
    expect(buildCancelReply(undefined, "vi").text).toMatch(/^Không có tác vụ/);
    expect(buildSettingsSaved("en").text).toBe("Saved the settings for this channel.");
  });
});
