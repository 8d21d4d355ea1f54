import { type ZipEntry, zipEntry, zipFile } from "./zip-file.ts";

/**
 * Renders the emulator's own Markdown note as a real DOCX (a zip starting with `PK`), so
 * clients upload a file Slack and Word can open. Only the Markdown the emulator writes is
 * understood: `#`/`##` headings, `- ` bullets, `**bold**` runs and plain paragraphs.
 *
 * Written as WordprocessingML by hand (ECMA-376 Part 1, §17): the few parts a document with
 * headings and bullets needs. The `docx` library took ≈40 ms of CPU a note, whatever its
 * size, and every note task of every test paid it.
 */
export function buildNoteDocx(markdown: string): Buffer {
  const paragraphs: string[] = [];
  for (const line of markdown.split("\n")) {
    if (line.trim() === "") continue;
    if (line.startsWith("# ")) {
      paragraphs.push(paragraph(run(line.slice(2), false), "Heading1"));
    } else if (line.startsWith("## ")) {
      paragraphs.push(paragraph(run(line.slice(3), false), "Heading2"));
    } else if (line.startsWith("- ")) {
      paragraphs.push(paragraph(runs(line.slice(2)), "ListParagraph", BULLET));
    } else {
      paragraphs.push(paragraph(runs(line)));
    }
  }
  FIXED_PARTS ??= [
    zipEntry("[Content_Types].xml", CONTENT_TYPES),
    zipEntry("_rels/.rels", PACKAGE_RELS),
    zipEntry("docProps/core.xml", CORE_PROPERTIES),
    zipEntry("word/_rels/document.xml.rels", DOCUMENT_RELS),
    zipEntry("word/styles.xml", STYLES),
    zipEntry("word/numbering.xml", NUMBERING),
  ];
  return zipFile([...FIXED_PARTS, zipEntry("word/document.xml", documentXml(paragraphs))]);
}

/** The parts every note has the same, deflated on the first note. */
let FIXED_PARTS: ZipEntry[] | undefined;

const XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";
const R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const PR = "http://schemas.openxmlformats.org/package/2006/relationships";
const BULLET = '<w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr>';

/** Splits on `**` so every other piece is bold. */
function runs(text: string): string {
  return text
    .split("**")
    .map((piece, index) => (piece === "" ? "" : run(piece, index % 2 === 1)))
    .join("");
}

function run(text: string, bold: boolean): string {
  const props = bold ? "<w:rPr><w:b/><w:bCs/></w:rPr>" : "";
  return `<w:r>${props}<w:t xml:space="preserve">${escapeXml(text)}</w:t></w:r>`;
}

function paragraph(content: string, style?: string, numbering = ""): string {
  const props =
    style === undefined ? "" : `<w:pPr><w:pStyle w:val="${style}"/>${numbering}</w:pPr>`;
  return `<w:p>${props}${content}</w:p>`;
}

/**
 * Text as XML character data: markup characters escaped, and the characters XML 1.0 does
 * not allow at all (C0 controls but tab, line feed and carriage return; lone surrogates;
 * U+FFFE, U+FFFF) left out, since a note may quote whatever a dialog said.
 */
export function escapeXml(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;");
}

function documentXml(paragraphs: string[]): string {
  return `${XML}<w:document xmlns:w="${W}" xmlns:r="${R}"><w:body>${paragraphs.join("")}<w:sectPr><w:pgSz w:w="11906" w:h="16838"/><w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="708" w:footer="708" w:gutter="0"/></w:sectPr></w:body></w:document>`;
}

const CONTENT_TYPES = `${XML}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/><Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/><Override PartName="/word/numbering.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml"/><Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/></Types>`;

const PACKAGE_RELS = `${XML}<Relationships xmlns="${PR}"><Relationship Id="rId1" Type="${R}/officeDocument" Target="word/document.xml"/><Relationship Id="rId2" Type="${PR}/metadata/core-properties" Target="docProps/core.xml"/></Relationships>`;

const DOCUMENT_RELS = `${XML}<Relationships xmlns="${PR}"><Relationship Id="rId1" Type="${R}/styles" Target="styles.xml"/><Relationship Id="rId2" Type="${R}/numbering" Target="numbering.xml"/></Relationships>`;

const CORE_PROPERTIES = `${XML}<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><dc:title>Meeting notes</dc:title><dc:creator>Note Service emulator</dc:creator></cp:coreProperties>`;

const heading = (id: string, name: string, halfPoints: number) =>
  `<w:style w:type="paragraph" w:styleId="${id}"><w:name w:val="${name}"/><w:basedOn w:val="Normal"/><w:next w:val="Normal"/><w:qFormat/><w:pPr><w:keepNext/><w:spacing w:before="240" w:after="120"/><w:outlineLvl w:val="${id === "Heading1" ? 0 : 1}"/></w:pPr><w:rPr><w:b/><w:bCs/><w:sz w:val="${halfPoints}"/><w:szCs w:val="${halfPoints}"/></w:rPr></w:style>`;

const STYLES = `${XML}<w:styles xmlns:w="${W}"><w:docDefaults><w:rPrDefault><w:rPr><w:sz w:val="22"/><w:szCs w:val="22"/><w:lang w:val="en-US"/></w:rPr></w:rPrDefault><w:pPrDefault><w:pPr><w:spacing w:after="120"/></w:pPr></w:pPrDefault></w:docDefaults><w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/><w:qFormat/></w:style>${heading("Heading1", "heading 1", 32)}${heading("Heading2", "heading 2", 26)}<w:style w:type="paragraph" w:styleId="ListParagraph"><w:name w:val="List Paragraph"/><w:basedOn w:val="Normal"/><w:qFormat/><w:pPr><w:ind w:left="720"/></w:pPr></w:style></w:styles>`;

const NUMBERING = `${XML}<w:numbering xmlns:w="${W}"><w:abstractNum w:abstractNumId="0"><w:multiLevelType w:val="singleLevel"/><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="bullet"/><w:lvlText w:val="•"/><w:lvlJc w:val="left"/><w:pPr><w:ind w:left="720" w:hanging="360"/></w:pPr></w:lvl></w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num></w:numbering>`;
