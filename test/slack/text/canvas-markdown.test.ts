import { describe, expect, it } from "vitest";
import { toCanvasMarkdown } from "../../../src/slack/text/canvas-markdown.ts";
import {
  canvasViolations,
  mentionsIn,
  visibleTexts,
} from "../../../support/helpers/read-canvas.ts";

const BOB = { name: "Bob Tran", userId: "U0BOB0001" };

/** The canvas of a note, checked to hold nothing but inert text and mentions of `people`. */
function canvasOf(note: string, people: { name: string; userId: string }[] = []): string {
  const canvas = toCanvasMarkdown(note, people);
  expect(
    canvasViolations(
      canvas,
      people.map((person) => person.userId),
    ),
  ).toEqual([]);
  return canvas;
}

describe("toCanvasMarkdown", () => {
  it("writes a typical note as a canvas takes it: headings, lists, tables, checklists, code", () => {
    const note = [
      "# Meeting notes",
      "",
      "_Written with the uploaded template (2048 bytes)._",
      "",
      "## Discussion",
      "",
      "- **Bob Tran** (00:12): We ship on 1 March — *if* QA signs off.",
      "- **Lan** (01:05): `npm run build` fails on ~~main~~ `dev`.",
      "",
      "| Owner | Task | Due |",
      "|---|:---:|--:|",
      "| Bob Tran | Write *docs* | 2024-03-01 |",
      "",
      "#### Risks",
      "1. Supplier delay",
      "2. Budget cut",
      "",
      "```sh",
      "npm ci && npm test",
      "```",
      "> Decided: ship.",
      "",
      "## Action items",
      "",
      '- [ ] **Bob Tran**: follow up on "the plan" before the next meeting.',
      "- [x] **Lan**: book the room.",
    ].join("\n");
    expect(canvasOf(note)).toBe(
      [
        "# Meeting notes",
        "",
        "*Written with the uploaded template (2048 bytes).*",
        "",
        "## Discussion",
        "",
        "- **Bob Tran** (00:12): We ship on 1 March — *if* QA signs off.",
        "- **Lan** (01:05): `npm run build` fails on ~~main~~ `dev`.",
        "",
        "| Owner | Task | Due |",
        "| - | :-: | -: |",
        "| Bob Tran | Write *docs* | 2024-03-01 |",
        "",
        "**Risks**",
        "",
        "1. Supplier delay",
        "2. Budget cut",
        "",
        "```sh",
        "npm ci && npm test",
        "```",
        "",
        "> Decided: ship.",
        "",
        "## Action items",
        "",
        '- [ ] **Bob Tran**: follow up on "the plan" before the next meeting.',
        "- [x] **Lan**: book the room.",
        "",
      ].join("\n"),
    );
  });

  it("keeps h1–h3 and turns deeper headings into bold lines, dropping nothing", () => {
    const note = "# Notes\n## Decisions\n### Budget\n#### Detail\n###### Deeper ##\n- item\n";
    expect(canvasOf(note)).toBe(
      "# Notes\n\n## Decisions\n\n### Budget\n\n**Detail**\n\n**Deeper**\n\n- item\n",
    );
  });

  it("escapes only what would read as markup, so the text reads back the same", () => {
    const note = "Q&A: 2 * 3 = 6, a_b_c, 40% < 50%, ~5 items, #1 [draft] `x`";
    const canvas = canvasOf(note);
    expect(canvas).toBe("Q\\&A: 2 \\* 3 = 6, a_b_c, 40% < 50%, \\~5 items, #1 \\[draft] `x`\n");
    expect(visibleTexts(canvas)).toEqual([note.replace("`x`", "x"), note.replace("`x`", "x")]);
  });

  it("shows a link's target as the thread does, so a phishing link is seen for what it is", () => {
    const canvas = canvasOf("[Reset your SSO password](https://evil.example/login)");
    expect(canvas).toBe(
      "Reset your SSO password ([https://evil.example/login](https://evil.example/login))\n",
    );
    for (const seen of visibleTexts(canvas)) {
      expect(seen).toBe("Reset your SSO password (https://evil.example/login)");
    }
  });

  it.each([
    ["a reference image", "See ![x][r] now.\n\n[r]: @U0EVIL001", "See x (@U0EVIL001) now."],
    ["a shortcut reference", "See ![r] now.\n\n[r]: @U0EVIL001", "See r (@U0EVIL001) now."],
    ["a fence closed by the wrong fence", "```\n~~~\n```\n![](@U0EVIL001)", "~~~\n@U0EVIL001"],
    ["an unclosed fence", "~~~\n```\n![](@U0EVIL001)\n", "```\n！[] (@U0EVIL001)"],
    ["an indented fence", "    ```\n![](@U0EVIL001)\n    ```", "@U0EVIL001"],
    ["a two-line image", "See ![a\nb](@U0EVIL001)", "b (@U0EVIL001)"],
    ["a channel image", "![general](#C0EVIL001) and ![](!here)", "general (#C0EVIL001) and !here"],
    ["an escaped image", "\\![x](@U0EVIL001) and &#33;[y](@U0EVIL001)", "!x (@U0EVIL001)"],
    ["an image in HTML", "<div>\n![x](@U0EVIL001)\n</div>", "！[x] (@U0EVIL001)"],
    ["a footnote", "Text[^1] and ![^1]\n\n[^1]: @U0EVIL001", "^1 (@U0EVIL001)"],
    ["an image to the picked person", "![](@U0BOB0001) owns it", "@U0BOB0001 owns it"],
  ])("leaves %s as text that shows its target, never a mention", (_, note, shown) => {
    const canvas = canvasOf(note);
    expect(mentionsIn(canvas)).toEqual([]);
    for (const seen of visibleTexts(canvas)) expect(seen).toContain(shown);
  });

  it("mentions the people given, and only them, where their names are text", () => {
    const note =
      "<!here> Bob Tran owns it, <@U0EVIL001> reviews.\n\n`Bob Tran` in code stays.\n\n" +
      "- [ ] **Bob Tran**: ask [Bob Tran](https://x.example/Bob)";
    const canvas = canvasOf(note, [BOB]);
    expect(canvas).toContain("‹!here› ![](@U0BOB0001) owns it, ‹@U0EVIL001› reviews.");
    expect(canvas).toContain("`Bob Tran` in code stays.");
    expect(mentionsIn(canvas)).toEqual(["@U0BOB0001", "@U0BOB0001", "@U0BOB0001"]);
  });

  it("keeps neutralising Slack's control sequences, however they are written", () => {
    const canvas = canvasOf("&lt;!channel&gt; \\<@U0EVIL001> <#C0EVIL001|x> `<!everyone>`");
    for (const seen of visibleTexts(canvas)) expect(seen).not.toMatch(/<[!@#]/);
  });

  it("writes raw HTML and reference definitions as nothing a reader acts on", () => {
    const note = '<img src="x" onerror="y">\n\nA <b>bold</b> claim.\n\n[r]: https://e.example';
    const canvas = canvasOf(note);
    expect(visibleTexts(canvas)[1]).toBe('<img src="x" onerror="y">\nA <b>bold</b> claim.');
  });

  it("gives `![` in code a look-alike, so a reader that ends the code elsewhere sees no image", () => {
    const canvas = canvasOf("`![` and\n\n```\n![x][r]\n```\n\n[r]: @U0EVIL001");
    expect(canvas).toContain("`！[`");
    expect(canvas).not.toContain("![");
  });

  it("keeps a long ordinary note parsed: every heading and checklist item is there", () => {
    const section = (n: number) =>
      `## Topic ${n}\n\n- **Bob Tran** (00:${n % 60}): see [plan ${n}](https://x.example/${n}).\n` +
      `- [ ] **Lan**: item ${n}\n\n| a | b |\n|---|---|\n| ${n} | *x* |\n\n`;
    const note = Array.from({ length: 200 }, (_, n) => section(n)).join("");
    const canvas = toCanvasMarkdown(note, []);
    expect(canvas.match(/^## Topic \d+$/gm)).toHaveLength(200);
    expect(canvas.match(/^- \[ \] \*\*Lan\*\*: item \d+$/gm)).toHaveLength(200);
    expect(canvas).toContain(`plan 7 ([https://x.example/7](https://x.example/7))`);
  });

  it.each([
    ["unclosed links", "[a](b\\)".repeat(20_000)],
    ["nested images", `${"![".repeat(10_000)}x${"](@U0EVIL001)".repeat(10_000)}`],
    ["unclosed brackets", "![".repeat(60_000)],
    ["one long list", "- a\n".repeat(30_000)],
    ["lists after headings", "# h\n- ![a](@U0EVIL001)\n".repeat(8_000)],
    ["quotes apart", "> ![a](@U0EVIL001)\n\n".repeat(8_000)],
    ["setext headings", "![a](@U0EVIL001)\n---\n".repeat(6_000)],
    ["deep nesting", `${"> ".repeat(3_000)}- ${"- ".repeat(3_000)}![a](@U0EVIL001)`],
  ])("stays fast and inert on a note full of %s", (_, note) => {
    // CPU time against an ordinary note a quarter as long, so a loaded machine slows both:
    // linear work stays within a small multiple of it, a quadratic path is far beyond.
    const quarter = Math.ceil(note.length / 4);
    const ordinary = "Some words and [a link](https://x.example/b).\n\n".repeat(quarter / 46 + 1);
    const plainMs = cpuMs(() => toCanvasMarkdown(ordinary.slice(0, quarter), []));
    let canvas = "";
    const ms = cpuMs(() => {
      canvas = toCanvasMarkdown(note, []);
    });
    expect(ms).toBeLessThan(40 * plainMs + 200);
    expect(canvas.replace(/!\[\]\(@U0BOB0001\)/g, "")).not.toContain("![");
  });
});

/** How much CPU time `work` took, in milliseconds. */
function cpuMs(work: () => unknown): number {
  const started = process.cpuUsage();
  work();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000;
}
