import type { ContextBlock, MarkdownBlock } from "@slack/types";
import { describe, expect, it } from "vitest";
import { METADATA_EVENT_TYPE } from "../../../src/slack/ids.ts";
import { splitMarkdown } from "../../../src/slack/text/split-markdown.ts";
import { buildNotePart } from "../../../src/slack/views/note-part.ts";
import {
  expectMessageLimits,
  expectNoLiveMentions,
} from "../../../support/helpers/slack-limits.ts";

const options = { index: 0, total: 1, jobId: "job-1", delivery: 1, locale: "en" } as const;

describe("buildNotePart", () => {
  it("posts the part in one markdown block, tagged with the job and part", () => {
    const message = buildNotePart("# Notes\n\n- Ship on Friday", options);
    expectMessageLimits(message);
    expect(message.blocks).toEqual([{ type: "markdown", text: "# Notes\n\n- Ship on Friday" }]);
    expect(message.text).toBe("Meeting notes");
    expect(message.metadata).toEqual({
      event_type: METADATA_EVENT_TYPE,
      event_payload: { job_id: "job-1", kind: "note_part", delivery: 1, part: 0, total: 1 },
    });
  });

  it("says which part it is when there are several (1-based for people, 0-based in metadata)", () => {
    const message = buildNotePart("## Budget", { ...options, index: 1, total: 3 });
    const context = message.blocks[1] as ContextBlock;
    expect(JSON.stringify(context)).toContain("Part 2 of 3");
    expect(message.text).toBe("Meeting notes, part 2 of 3");
    expect(message.metadata.event_payload.part).toBe(1);
    const vi = buildNotePart("## Ngân sách", { ...options, index: 1, total: 3, locale: "vi" });
    expect(JSON.stringify(vi.blocks)).toContain("Phần 2/3");
    expect(vi.text).toBe("Biên bản cuộc họp, phần 2/3");
  });

  it("neutralises mentions without escaping, which markdown would show", () => {
    const message = buildNotePart("Lan & <@U123> told <!channel>: @here a < b", options);
    expectNoLiveMentions(message);
    const text = (message.blocks[0] as MarkdownBlock).text;
    expect(text).toBe("Lan & ‹@U123› told ‹!channel›: ＠here a < b");
  });

  it("keeps the mentions of the people picked, and only theirs, and measures the result", () => {
    const people = [{ name: "Bob Tran", userId: "U0BOB0001" }];
    const message = buildNotePart("<@U0BOB0001> asks <@U0ALICE01> and <!channel>", {
      ...options,
      people,
    });
    expect((message.blocks[0] as MarkdownBlock).text).toBe(
      "<@U0BOB0001> asks ‹@U0ALICE01› and ‹!channel›",
    );
    const full = `<@U0BOB0001> ${"x".repeat(11_987)}`;
    expect(() => buildNotePart(full, { ...options, people })).not.toThrow();
    expect(() => buildNotePart(`${full}x`, { ...options, people })).toThrow(RangeError);
  });

  it("keeps every part of a long note within the message limits", () => {
    const note = Array.from(
      { length: 40 },
      (_, i) => `## Topic ${i}\n\n${"word ".repeat(180)}`,
    ).join("\n\n");
    const parts = splitMarkdown(note);
    expect(parts.length).toBeGreaterThan(2);
    parts.forEach((part, index) => {
      expectMessageLimits(buildNotePart(part, { ...options, index, total: parts.length }));
    });
  });

  it("refuses a part Slack would cut, an empty part, or a wrong index", () => {
    expect(() => buildNotePart("x".repeat(12_001), options)).toThrow(RangeError);
    expect(() => buildNotePart(" \n", options)).toThrow(RangeError);
    expect(() => buildNotePart("x", { ...options, index: 1 })).toThrow(RangeError);
  });
});
