import { describe, expect, it } from "vitest";
import { findMentionableNames } from "../../../src/slack/text/find-mentionable-names.ts";
import { DEFAULT_PART_CHARS, splitMarkdown } from "../../../src/slack/text/split-markdown.ts";
import {
  MESSAGE_MARKDOWN_MAX_CHARS,
  noteText,
  splitNote,
} from "../../../src/slack/text/split-note.ts";
import { buildNotePart } from "../../../src/slack/views/note-part.ts";
import { liveMentions } from "../../../support/helpers/reader-view.ts";

const BOB = "U0BOB0001";
const bob = [{ name: "Bob Tran", userId: BOB }];
const mentionsIn = (text: string) => text.split(`<@${BOB}>`).length - 1;

/** A long note naming Bob twice on every line of one long list. */
function longNote(chars: number): string {
  const lines = ["# Meeting notes", "", "## Action items", ""];
  for (let i = 0; lines.join("\n").length < chars; i++) {
    lines.push(`- Bob Tran owns item ${i}; Bob Tran reports back on Friday.`);
  }
  return lines.join("\n");
}

describe("splitNote", () => {
  it("measures the parts after the mentions: none is over Slack's limit (was 15,909)", () => {
    const note = longNote(40_000);
    // The bug: split first, then `Bob Tran` (8) became `<@U0BOB0001>` (12) in each part.
    const late = splitMarkdown(note).map((part) => part.replaceAll("Bob Tran", `<@${BOB}>`));
    expect(Math.max(...late.map((part) => part.length))).toBeGreaterThan(
      MESSAGE_MARKDOWN_MAX_CHARS,
    );
    const parts = splitNote(note, bob);
    expect(parts.length).toBeGreaterThan(3);
    for (const [index, part] of parts.entries()) {
      expect(part.length).toBeLessThanOrEqual(DEFAULT_PART_CHARS);
      const options = {
        index,
        total: parts.length,
        jobId: "j",
        delivery: 1,
        locale: "en",
      } as const;
      const posted = buildNotePart(part, { ...options, people: bob });
      const markdown = (posted.blocks[0] as { text: string }).text;
      expect(markdown).toBe(part);
      expect(markdown.length).toBeLessThanOrEqual(MESSAGE_MARKDOWN_MAX_CHARS);
    }
    // Every name became a mention, none was lost at a cut.
    expect(mentionsIn(parts.join("\n"))).toBe(note.split("Bob Tran").length - 1);
    expect(parts.join("\n")).not.toContain("Bob Tran");
  });

  it("never mentions anyone in code, fenced, indented or inline", () => {
    const note = [
      "Bob Tran opened the review.",
      "",
      "```js",
      "assign('Bob Tran');",
      "```",
      "",
      "~~~",
      "Bob Tran",
      "~~~",
      "",
      "    indented: Bob Tran",
      "",
      "Run `notify Bob Tran` and ``Bob Tran`` later, Bob Tran said.",
    ].join("\n");
    const text = noteText(note, bob);
    expect(text).toContain("assign('Bob Tran');");
    expect(text).toContain("~~~\nBob Tran\n~~~");
    expect(text).toContain("    indented: Bob Tran");
    expect(text).toContain("`notify Bob Tran` and ``Bob Tran`` later, <@U0BOB0001> said.");
    expect(text.startsWith(`<@${BOB}> opened the review.`)).toBe(true);
    expect(mentionsIn(text)).toBe(2);
  });

  it("never mentions anyone in a link's text or target, shown as `text (url)`", () => {
    const note = [
      "Bob Tran shared [Bob Tran's plan](https://example.com/Bob-Tran/plan).",
      "See [the plan by Bob Tran][plan], ![Bob Tran](https://img.example/Bob-Tran.png)",
      "and <https://chat.example|Bob Tran>, <https://example.com/Bob Tran>, https://example.com/Bob_Tran",
      "",
      "[plan]: https://example.com/Bob-Tran",
    ].join("\n");
    const text = noteText(note, bob);
    expect(text).toContain("Bob Tran's plan (https://example.com/Bob-Tran/plan)");
    expect(text).toContain("the plan by Bob Tran (https://example.com/Bob-Tran)");
    expect(text).toContain("Bob Tran (https://img.example/Bob-Tran.png)");
    expect(text).toContain("Bob Tran (https://chat.example)");
    expect(text).toContain("https://example.com/Bob_Tran");
    expect(text.startsWith(`<@${BOB}> shared `)).toBe(true);
    expect(mentionsIn(text)).toBe(1);
  });

  it("mentions in prose wherever a reader reads it: headings, emphasis, lists, tables", () => {
    const note = [
      "## Bob Tran's update",
      "",
      "- **Bob Tran**: ship it",
      "",
      "| owner | task |",
      "| --- | --- |",
      "| Bob Tran | docs |",
    ].join("\n");
    const text = noteText(note, bob);
    expect(text).toContain(`## <@${BOB}>'s update`);
    expect(text).toContain(`- **<@${BOB}>**: ship it`);
    expect(text).toContain(`| <@${BOB}> | docs |`);
  });

  it("keeps the note's own mentions inert, also of the picked person, and forges none", () => {
    const forged = `\uFDD00\uFDD1 and \uFDD0`;
    const text = noteText(`<@${BOB}> <!here> &lt;!channel&gt; @everyone, Bob Tran, ${forged}`, bob);
    expect(liveMentions(text)).toEqual([`<@${BOB}`]);
    // The marks the rewrite uses are dropped from the note first: what is left is text.
    expect(text).toBe(`‹@${BOB}› ‹!here› ‹!channel› ＠everyone, <@${BOB}>, 0 and `);
  });

  it("is the note with links shown and mentions inert when no one is picked", () => {
    const note = "Bob Tran: [the plan](https://x.example) <!channel>";
    expect(noteText(note, [])).toBe("Bob Tran: the plan (https://x.example) ‹!channel›");
    expect(splitNote(note)).toEqual([noteText(note)]);
  });

  it("never cuts a mention in two, even in a line too long to cut at a space", () => {
    const note = Array.from({ length: 60 }, () => "Bob Tran").join(",");
    const parts = splitNote(note, bob, { maxChars: 50 });
    expect(parts.length).toBeGreaterThan(10);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(50);
      expect(part.replaceAll(`<@${BOB}>`, "")).not.toMatch(/[<@>]/);
    }
    expect(mentionsIn(parts.join(""))).toBe(60);
  });
});

describe("findMentionableNames", () => {
  it("finds names in prose only, by position in the note as written", () => {
    const note = "Bob Tran and `Bob Tran` and [Bob Tran](https://x.example) and Bob Tran";
    const found = findMentionableNames(note, bob);
    expect(found.map((name) => note.slice(name.start, name.end))).toEqual(["Bob Tran", "Bob Tran"]);
    expect(found.map((name) => name.start)).toEqual([0, note.lastIndexOf("Bob Tran")]);
  });

  it("finds nothing without people, or without their names", () => {
    expect(findMentionableNames("Bob Tran", [])).toEqual([]);
    expect(findMentionableNames("Lan Pham", bob)).toEqual([]);
  });
});
