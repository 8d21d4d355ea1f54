import { crc32, inflateRawSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { buildNoteDocx } from "../../support/emulator/note-docx.ts";

/**
 * Reads a zip as an unzipper does: from the end record to the central directory, from there
 * to each local header; inflates every entry and checks its CRC-32 and size.
 */
function readZip(zip: Buffer): Map<string, string> {
  const end = zip.length - 22;
  expect(zip.readUInt32LE(end)).toBe(0x06054b50);
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  expect(at + zip.readUInt32LE(end + 12)).toBe(end);
  const files = new Map<string, string>();
  for (let i = 0; i < count; i += 1) {
    expect(zip.readUInt32LE(at)).toBe(0x02014b50);
    const [method, crc, packed, size] = [
      zip.readUInt16LE(at + 10),
      zip.readUInt32LE(at + 16),
      zip.readUInt32LE(at + 20),
      zip.readUInt32LE(at + 24),
    ];
    const nameLength = zip.readUInt16LE(at + 28);
    const skip = nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    const name = zip.toString("utf8", at + 46, at + 46 + nameLength);
    const local = zip.readUInt32LE(at + 42);
    expect(zip.readUInt32LE(local)).toBe(0x04034b50);
    expect(zip.readUInt32LE(local + 14)).toBe(crc);
    expect(zip.toString("utf8", local + 30, local + 30 + zip.readUInt16LE(local + 26))).toBe(name);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    expect(method).toBe(8);
    const data = inflateRawSync(zip.subarray(start, start + packed));
    expect({ name, size: data.length, crc: crc32(data) }).toEqual({ name, size, crc });
    files.set(name, data.toString("utf8"));
    at += 46 + skip;
  }
  return files;
}

const NOTE = [
  "# Meeting notes",
  "",
  "## Attendees",
  "",
  "- Lan",
  "- **Minh** (host)",
  "",
  "## Context",
  "",
  'Budget <!channel> & "Q3" \u0007review',
  "**Decision:** ship it",
].join("\n");

describe("the emulator's DOCX", () => {
  it("is a zip Word opens: content types, relationships and the parts they name", () => {
    const files = readZip(buildNoteDocx(NOTE));
    expect([...files.keys()].sort()).toEqual([
      "[Content_Types].xml",
      "_rels/.rels",
      "docProps/core.xml",
      "word/_rels/document.xml.rels",
      "word/document.xml",
      "word/numbering.xml",
      "word/styles.xml",
    ]);
    const types = files.get("[Content_Types].xml") ?? "";
    expect(types).toContain(
      'PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"',
    );
    expect(files.get("_rels/.rels")).toContain('Target="word/document.xml"');
    // Every style and numbering the document uses is defined.
    const document = files.get("word/document.xml") ?? "";
    const styles = files.get("word/styles.xml") ?? "";
    for (const [, style] of document.matchAll(/<w:pStyle w:val="([^"]+)"\/>/g)) {
      expect(styles).toContain(`w:styleId="${style}"`);
    }
    expect(files.get("word/numbering.xml")).toContain('<w:num w:numId="1">');
    expect(files.get("docProps/core.xml")).toContain("<dc:title>Meeting notes</dc:title>");
  });

  it("has the note's headings, bullets and bold runs, its text escaped as XML", () => {
    const document = readZip(buildNoteDocx(NOTE)).get("word/document.xml") ?? "";
    const paragraphs = [...document.matchAll(/<w:p>(.*?)<\/w:p>/g)].map(([, p = ""]) => ({
      style: /<w:pStyle w:val="([^"]+)"/.exec(p)?.[1],
      bullet: p.includes("<w:numPr>"),
      runs: [...p.matchAll(/<w:r>(<w:rPr><w:b\/>.*?<\/w:rPr>)?<w:t[^>]*>(.*?)<\/w:t><\/w:r>/g)].map(
        ([, bold, text]) => (bold ? `*${text}*` : text),
      ),
    }));
    expect(paragraphs).toEqual([
      { style: "Heading1", bullet: false, runs: ["Meeting notes"] },
      { style: "Heading2", bullet: false, runs: ["Attendees"] },
      { style: "ListParagraph", bullet: true, runs: ["Lan"] },
      { style: "ListParagraph", bullet: true, runs: ["*Minh*", " (host)"] },
      { style: "Heading2", bullet: false, runs: ["Context"] },
      // Markup escaped; a control character (not allowed in XML 1.0) left out.
      { style: undefined, bullet: false, runs: ['Budget &lt;!channel&gt; &amp; "Q3" review'] },
      { style: undefined, bullet: false, runs: ["*Decision:*", " ship it"] },
    ]);
  });

  it("is the same bytes for the same note", () => {
    expect(buildNoteDocx(NOTE).equals(buildNoteDocx(NOTE))).toBe(true);
  });
});
