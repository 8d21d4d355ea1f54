import { describe, expect, it } from "vitest";
import { FAILURE_CODES } from "../../../src/jobs/model/job.ts";
import {
  en,
  LANGUAGE_CODES,
  LOCALES,
  languageName,
  localeOf,
  type MessageKey,
  t,
  timeAgo,
  vi,
} from "../../../src/slack/messages/catalog.ts";

const keys = Object.keys(en) as MessageKey[];
const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe("the catalog", () => {
  it("has every English key in Vietnamese, and no other", () => {
    expect(Object.keys(vi).sort()).toEqual([...keys].sort());
  });

  it.each(keys)("uses the same placeholders in both languages: %s", (key) => {
    expect(placeholders(vi[key])).toEqual(placeholders(en[key]));
    expect(vi[key].trim()).not.toBe("");
  });

  it("keeps modal titles and modal buttons within 24 characters in both languages", () => {
    const modalKeys = keys.filter((k) => k.startsWith("modal."));
    expect(modalKeys.length).toBeGreaterThanOrEqual(9);
    for (const locale of LOCALES) {
      for (const key of modalKeys)
        expect(t(locale, key as "modal.close").length).toBeLessThanOrEqual(24);
    }
  });

  it("keeps button and option labels within 75 characters", () => {
    const labels = keys.filter((k) => /^(button|gender|settings\.auto_o|confirm)/.test(k));
    for (const catalog of [en, vi]) {
      for (const key of labels) expect(catalog[key].length).toBeLessThanOrEqual(75);
    }
  });

  it("writes Vietnamese in NFC, as Slack counts characters", () => {
    for (const key of keys) expect(vi[key]).toBe(vi[key].normalize("NFC"));
  });

  it("has a sentence for every failure code", () => {
    for (const code of FAILURE_CODES) expect(keys).toContain(`failure.${code}`);
  });
});

describe("t", () => {
  it("fills placeholders in the chosen language", () => {
    expect(t("en", "status.transcribing_percent", { file: "weekly-sync.m4a", percent: 40 })).toBe(
      "Transcribing weekly-sync.m4a… 40%",
    );
    expect(t("vi", "status.downloading", { file: "họp.m4a" })).toBe("Đang tải họp.m4a…");
    expect(t("en", "status.done")).toBe("Notes ready.");
  });

  it("inserts values as given, without filling placeholders inside them", () => {
    expect(t("en", "failure.task_failed", { detail: "{file} <b>" })).toBe(
      "The Note Service could not process it: {file} <b>",
    );
  });
});

describe("localeOf", () => {
  it.each([
    ["vi-VN", "vi"],
    ["vi", "vi"],
    ["VI_vn", "vi"],
    ["en-US", "en"],
    ["ja-JP", "en"],
    ["video", "en"],
    ["", "en"],
    [undefined, "en"],
  ] as const)("reads %s as %s", (slack, locale) => {
    expect(localeOf(slack)).toBe(locale);
  });
});

describe("timeAgo", () => {
  const now = 1_000_000_000;
  it.each([
    [10_000, "just now", "vừa xong"],
    [60_000, "1 minute ago", "1 phút trước"],
    [5 * 60_000, "5 minutes ago", "5 phút trước"],
    [3 * 3_600_000, "3 hours ago", "3 giờ trước"],
    [86_400_000, "1 day ago", "1 ngày trước"],
    [9 * 86_400_000, "9 days ago", "9 ngày trước"],
  ])("says %s ms ago", (ago, english, vietnamese) => {
    expect(timeAgo("en", now - ago, now)).toBe(english);
    expect(timeAgo("vi", now - ago, now)).toBe(vietnamese);
  });

  it("treats a time in the future as now", () => {
    expect(timeAgo("en", now + 5_000, now)).toBe("just now");
  });
});

describe("languageName", () => {
  it("names languages in the reader's language, Vietnamese and English first", () => {
    expect(LANGUAGE_CODES.slice(0, 2)).toEqual(["vi", "en"]);
    expect(languageName("en", "ja")).toBe("Japanese");
    expect(languageName("vi", "vi")).toBe("Tiếng Việt");
  });

  it("falls back to the code", () => {
    expect(languageName("en", "zz")).toBe("zz");
  });
});
