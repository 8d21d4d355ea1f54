import { describe, expect, it } from "vitest";
import { clampMrkdwn, clampText } from "../../../src/slack/text/clamp-text.ts";
import { formatDuration } from "../../../src/slack/text/format-duration.ts";

describe("formatDuration", () => {
  it.each([
    [0, "00:00"],
    [5.9, "00:05"],
    [65, "01:05"],
    [3599, "59:59"],
    [3600, "1:00:00"],
    [3725, "1:02:05"],
    [36_000, "10:00:00"],
    [-4, "00:00"],
    [Number.NaN, "00:00"],
  ])("formats %s seconds as %s", (seconds, expected) => {
    expect(formatDuration(seconds)).toBe(expected);
  });
});

describe("clampText", () => {
  it("keeps short text and cuts long text with an ellipsis", () => {
    expect(clampText("short", 10)).toBe("short");
    const cut = clampText("a".repeat(100), 75);
    expect(cut).toHaveLength(75);
    expect(cut.endsWith("…")).toBe(true);
  });

  it("never splits a surrogate pair", () => {
    const cut = clampText(`${"a".repeat(8)}😀😀😀`, 10);
    expect(cut.length).toBeLessThanOrEqual(10);
    expect(cut).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });

  it("clampMrkdwn never leaves half an entity", () => {
    const cut = clampMrkdwn(`${"a".repeat(7)}&amp;bbbb`, 10);
    expect(cut).toBe("aaaaaaa…");
  });
});
