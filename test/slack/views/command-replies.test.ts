import { describe, expect, it } from "vitest";
import type { Job } from "../../../src/jobs/index.ts";
import { LOCALES } from "../../../src/slack/messages/catalog.ts";
import {
  buildCancelReply,
  buildChannelStatus,
  buildCommandRefusal,
  buildHelpMessage,
  buildSettingsSaved,
  buildUnknownCommand,
  MAX_STATUS_JOBS,
} from "../../../src/slack/views/command-replies.ts";
import { buildFileNotices, buildRefusal } from "../../../src/slack/views/thread-replies.ts";
import {
  expectMessageLimits,
  expectNoLiveMentions,
} from "../../../support/helpers/slack-limits.ts";
import { done, everyStage, NOW, queued, T0 } from "./fixtures.ts";

describe("buildHelpMessage", () => {
  it.each(LOCALES)("lists every subcommand (%s)", (locale) => {
    const help = buildHelpMessage(locale, { canPrepare: false });
    expectMessageLimits(help);
    const json = JSON.stringify(help.blocks);
    for (const sub of ["help", "status", "settings", "cancel"]) {
      expect(json).toContain(`/meeting-notes ${sub}`);
    }
    expect(json).toContain("m4a");
  });

  it.each(LOCALES)("says what the bot takes, with or without FFmpeg, and DMs (%s)", (locale) => {
    const [prepared, asIs] = [true, false].map((canPrepare) => {
      const help = buildHelpMessage(locale, { canPrepare });
      expectMessageLimits(help);
      return JSON.stringify(help.blocks);
    });
    expect(prepared).toContain("1 GB");
    expect(prepared).not.toContain("300 MB");
    expect(asIs).toContain("mp3, mp4, wav, m4a, ogg, flac, aac, opus, webm");
    expect(asIs).toContain("300 MB");
    expect(asIs).not.toContain("1 GB");
    const dm = locale === "en" ? "direct message" : "tin nhắn trực tiếp";
    for (const help of [prepared, asIs]) expect(help).toContain(dm);
    expect(JSON.stringify(buildUnknownCommand("x", locale, { canPrepare: true }))).toContain(
      "1 GB",
    );
  });

  it("answers an unknown subcommand with the help", () => {
    const reply = buildUnknownCommand("<!channel>", "en", { canPrepare: false });
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

describe("buildFileNotices", () => {
  it("says one sentence per file, naming it as people see it, never by its Slack id", () => {
    const reply = buildFileNotices(
      [
        { name: "interview.mov", reason: "unsupported_format" },
        { name: undefined, reason: "unreadable" },
        { name: "all-hands.wav", reason: "too_large" },
      ],
      "en",
    );
    const lines = reply.text.split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^interview\.mov is not a recording I can use/);
    expect(lines[1]).toMatch(/^I can't read the file shared here: .* upload it here again/);
    expect(lines[2]).toMatch(/all-hands\.wav is over 300 MB/);
    expect(buildFileNotices([{ name: "x.m4v", reason: "unreadable" }], "vi").text).toMatch(
      /^Tôi không đọc được x\.m4v/,
    );
  });

  it("stays short and safe with many odd names", () => {
    const notices = Array.from({ length: 30 }, (_, i) => ({
      name: `<@U${i}>-${"n".repeat(300)}.mov`,
      reason: "unsupported_format" as const,
    }));
    const reply = buildFileNotices(notices, "en");
    expectMessageLimits(reply);
    expectNoLiveMentions(reply);
    expect(reply.text).toContain("…and 10 more files.");
  });
});

describe("command replies", () => {
  it("explains a refused command", () => {
    expect(buildCommandRefusal("not_found", "names", "en").text).toMatch(/cannot find that job/);
    expect(buildCommandRefusal("wrong_stage", "names", "en").text).toBe(
      "That job is no longer waiting for names.",
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
