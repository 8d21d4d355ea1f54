import { describe, expect, it } from "vitest";
import { DEFAULT_PART_CHARS, splitMarkdown } from "../../../src/slack/text/split-markdown.ts";

/**
 * Nothing lost or reordered: each part is a slice of the original, in order, and what lies
 * between (and around) them is whitespace only.
 */
function expectLossless(original: string, parts: string[]) {
  let cursor = 0;
  for (const part of parts) {
    const at = original.indexOf(part, cursor);
    expect(
      at,
      `part starting ${JSON.stringify(part.slice(0, 40))} is in order`,
    ).toBeGreaterThanOrEqual(0);
    expect(original.slice(cursor, at).trim()).toBe("");
    cursor = at + part.length;
  }
  expect(original.slice(cursor).trim()).toBe("");
  expect(parts.join("").replace(/\s+/g, "")).toBe(original.replace(/\s+/g, ""));
}

function expectBounded(parts: string[], max: number) {
  for (const part of parts) {
    expect(part.length).toBeLessThanOrEqual(max);
    expect(part.trim()).not.toBe("");
  }
}

/** A deterministic pseudo-random generator, so a failure can be replayed. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

const sentence = "Nhóm thống nhất lịch phát hành & giao việc cho <@U1> trước thứ Sáu. ";

function section(title: string, paragraphs: number, sentences: number): string {
  const body = Array.from({ length: paragraphs }, (_, p) =>
    p % 3 === 2
      ? Array.from({ length: sentences }, (_, i) => `- Item ${i}: ${sentence}`).join("\n")
      : sentence.repeat(sentences).trim(),
  );
  return [`## ${title}`, ...body].join("\n\n");
}

function longNote(chars: number): string {
  const sections: string[] = ["# Weekly sync — biên bản"];
  for (let i = 1; sections.join("\n\n").length < chars; i++) {
    sections.push(section(`Topic ${i}`, 4, 8));
  }
  return sections.join("\n\n");
}

describe("splitMarkdown", () => {
  it("splits a 30,000-character note into ≥ 3 parts of ≤ 11,500, losing nothing", () => {
    const note = longNote(30_000);
    expect(note.length).toBeGreaterThanOrEqual(30_000);
    const parts = splitMarkdown(note);
    expect(parts.length).toBeGreaterThanOrEqual(3);
    expectBounded(parts, DEFAULT_PART_CHARS);
    expectLossless(note, parts);
  });

  it("starts every part at a heading when the sections are small enough", () => {
    const parts = splitMarkdown(longNote(30_000));
    for (const part of parts) expect(part).toMatch(/^#{1,6} /);
  });

  it("packs several sections into one part instead of one message each", () => {
    const note = longNote(30_000);
    const sections = note.split(/\n(?=## )/).length;
    expect(splitMarkdown(note).length).toBeLessThan(sections / 2);
  });

  it("keeps a short note whole", () => {
    expect(splitMarkdown("# Notes\n\nAll good.\n")).toEqual(["# Notes\n\nAll good."]);
  });

  it("gives no parts for an empty or blank note", () => {
    expect(splitMarkdown("")).toEqual([]);
    expect(splitMarkdown(" \n\n\t\n")).toEqual([]);
  });

  it("falls back to paragraphs inside a section too long for one part", () => {
    const note = `# One\n\n${Array.from({ length: 6 }, (_, i) => `Paragraph ${i} ${"x".repeat(30)}`).join("\n\n")}`;
    const parts = splitMarkdown(note, { maxChars: 100 });
    expectBounded(parts, 100);
    expectLossless(note, parts);
    for (const part of parts.slice(1)) expect(part).toMatch(/^Paragraph \d/);
  });

  it("falls back to lines, then cuts an overlong line at a space or anywhere", () => {
    const lines = `# A\n${Array.from({ length: 10 }, (_, i) => `line ${i} ${"y".repeat(20)}`).join("\n")}`;
    const byLines = splitMarkdown(lines, { maxChars: 70 });
    expectBounded(byLines, 70);
    expectLossless(lines, byLines);
    for (const part of byLines.slice(1)) expect(part).toMatch(/^line \d/);

    const words = "word ".repeat(100).trim();
    const byWords = splitMarkdown(words, { maxChars: 47 });
    expectBounded(byWords, 47);
    expectLossless(words, byWords);
    for (const part of byWords) expect(part).toMatch(/^word( word)*$/);

    const blob = "z".repeat(1_000);
    const hard = splitMarkdown(blob, { maxChars: 300 });
    expect(hard.map((p) => p.length)).toEqual([300, 300, 300, 100]);
  });

  it("does not treat # lines inside a code fence as headings", () => {
    const code = ["```bash", "# install", "npm ci", "", "# run", "npm start", "```"].join("\n");
    const note = `# Setup\n\n${"Intro text. ".repeat(5)}\n\n${code}\n\n# Next\n\nMore.`;
    const parts = splitMarkdown(note, { maxChars: 130 });
    expectBounded(parts, 130);
    expectLossless(note, parts);
    expect(parts.some((p) => p.startsWith("# install") || p.startsWith("# run"))).toBe(false);
  });

  it("does not cut an emoji in half", () => {
    const note = "😀".repeat(100);
    const parts = splitMarkdown(note, { maxChars: 51 });
    expectBounded(parts, 51);
    expect(parts.join("")).toBe(note);
    for (const part of parts) expect(part).not.toMatch(/^[\udc00-\udfff]|[\ud800-\udbff]$/);
  });

  it("keeps the indentation of a part's first line", () => {
    const note = "- a\n  - nested one\n  - nested two\n  - nested three";
    const parts = splitMarkdown(note, { maxChars: 20 });
    expectLossless(note, parts);
    expect(parts.some((p) => p.startsWith("  - nested"))).toBe(true);
  });

  it("holds its promises on random notes", () => {
    const next = random(42);
    const pieces = [
      "# H",
      "## Sub",
      "text",
      "more words here",
      "",
      "",
      "- item",
      "```",
      "    code",
    ];
    for (let round = 0; round < 200; round++) {
      const lines = Array.from({ length: 5 + Math.floor(next() * 80) }, () => {
        const piece = pieces[Math.floor(next() * pieces.length)] ?? "";
        return next() < 0.1 ? `${piece} ${"long".repeat(Math.floor(next() * 40))}` : piece;
      });
      const note = lines.join(next() < 0.2 ? "\r\n" : "\n");
      const max = 20 + Math.floor(next() * 200);
      const parts = splitMarkdown(note, { maxChars: max });
      expectBounded(parts, max);
      expectLossless(note, parts);
    }
  });

  it("refuses a size that cannot hold anything", () => {
    expect(() => splitMarkdown("x", { maxChars: 0 })).toThrow(RangeError);
  });
});
