import { Document, HeadingLevel, Packer, Paragraph, TextRun } from "docx";

/**
 * Renders the emulator's own Markdown note as a real DOCX (a zip starting with `PK`), so
 * clients upload a file Slack and Word can open. Only the Markdown the emulator writes is
 * understood: `#`/`##` headings, `- ` bullets, `**bold**` runs and plain paragraphs.
 */
export async function buildNoteDocx(markdown: string): Promise<Buffer> {
  const children: Paragraph[] = [];
  for (const line of markdown.split("\n")) {
    if (line.trim() === "") continue;
    if (line.startsWith("# ")) {
      children.push(new Paragraph({ text: line.slice(2), heading: HeadingLevel.HEADING_1 }));
    } else if (line.startsWith("## ")) {
      children.push(new Paragraph({ text: line.slice(3), heading: HeadingLevel.HEADING_2 }));
    } else if (line.startsWith("- ")) {
      children.push(new Paragraph({ children: runs(line.slice(2)), bullet: { level: 0 } }));
    } else {
      children.push(new Paragraph({ children: runs(line) }));
    }
  }
  const document = new Document({
    creator: "Note Service emulator",
    title: "Meeting notes",
    sections: [{ children }],
  });
  return Packer.toBuffer(document);
}

/** Splits on `**` so every other piece is bold. */
function runs(text: string): TextRun[] {
  const result: TextRun[] = [];
  for (const [index, piece] of text.split("**").entries()) {
    if (piece !== "") result.push(new TextRun({ text: piece, bold: index % 2 === 1 }));
  }
  return result;
}
