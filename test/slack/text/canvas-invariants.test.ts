import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { toCanvasMarkdown } from "../../../src/slack/text/canvas-markdown.ts";
import { showLinkTargets } from "../../../src/slack/text/show-link-targets.ts";
import {
  canvasViolations,
  linkTargetsOf,
  mentionsIn,
  visibleTexts,
} from "../../../support/helpers/read-canvas.ts";

/*
 * The canvas holds only inert text and the mentions of the people picked, and shows every
 * link's target as the thread does, for any note built from the pieces an attacker would
 * use: links, images and references to `@U…`/`#C…`/`!here`, fences of both kinds that
 * close wrongly, indented code, HTML, Slack's own sequences, brackets across lines.
 */

const ZED = { name: "Zed Quinn", userId: "U0ZED0001" };

const target = fc.constantFrom(
  "https://evil.example/login",
  "https://a.example/x_(y)",
  "@U0EVIL001",
  "@U0ZED0001",
  "#C0EVIL001",
  "#general",
  "!here",
  "!subteam^S0EVIL01",
  "mailto:x@evil.example",
  "javascript:alert(1)",
);
const label = fc.constantFrom("r", "Ref", "x y", "1");
const word = fc.constantFrom("see", "Zed Quinn", "*a*", "_b_", "a\nb", "x]", "[y", "`c`", "", "—");
const fenceMark = fc
  .tuple(
    fc.constantFrom("`", "~"),
    fc.integer({ min: 3, max: 5 }),
    fc.constantFrom("", "   ", "    "),
  )
  .map(([char, length, indent]) => `${indent}${char.repeat(length)}`);

/** One piece of a hostile note: its Markdown. */
const piece: fc.Arbitrary<string> = fc.oneof(
  word,
  fc.tuple(word, target).map(([t, u]) => `[${t}](${u})`),
  fc.tuple(word, target).map(([t, u]) => `![${t}](${u})`),
  fc.tuple(word, target).map(([t, u]) => `![${t}](<${u}> "title")`),
  fc.tuple(word, label).map(([t, l]) => `![${t}][${l}]`),
  fc.tuple(word, label).map(([t, l]) => `[${t}][${l}]`),
  label.map((l) => `![${l}]`),
  label.map((l) => `[${l}]`),
  fc
    .tuple(label, target, fc.constantFrom("", " ", "   "))
    .map(([l, u, indent]) => `\n\n${indent}[${l}]: ${u}\n`),
  fc.tuple(label, target).map(([l, u]) => `\n\n[^${l}]: ${u}\n`),
  fenceMark.map((mark) => `\n${mark}\n`),
  fc.constantFrom("\n    indented ![c](@U0EVIL001)\n", "\n\n    ```\n"),
  fc.constantFrom("<div>", "</div>", "<span>", "<!-- c", "-->", '<img src="@U0EVIL001">'),
  fc.constantFrom("<@U0EVIL001>", "<!here>", "<!channel>", "<#C0EVIL001|x>", "&lt;!here&gt;"),
  fc.constantFrom("\\![a](@U0EVIL001)", "&#33;[a](@U0EVIL001)", "!\u200B[a](@U0EVIL001)"),
  fc.tuple(word, target).map(([t, u]) => `![${t}\n${t}](${u})`),
  fc.constantFrom("\n# ", "\n#### ", "\n###### ", "\n- ", "\n- [ ] ", "\n1. ", "\n> ", "\n---\n"),
  fc.constantFrom("\n| a | b |\n|---|---|\n| ", " | ", "\n\n"),
);

const note = fc
  .array(fc.tuple(piece, fc.constantFrom("", " ", "\n", "\n\n")), { maxLength: 14 })
  .map((pieces) => pieces.map(([markdown, gap]) => markdown + gap).join(""));

/** Targets as a reader must see them: without the surrounding spaces. */
const shown = (url: string) => url.trim();
/** Text as read, the look-alike ！ that `![` gets in a canvas read as `!`. */
const unfused = (text: string) => text.replaceAll("\uFF01", "!");

describe("the canvas of any note", () => {
  it("holds no image, definition or hidden link but the mentions of the people picked", () => {
    fc.assert(
      fc.property(note, fc.boolean(), (markdown, named) => {
        const people = named ? [ZED] : [];
        const canvas = toCanvasMarkdown(markdown, people);
        expect(canvasViolations(canvas, named ? [ZED.userId] : [])).toEqual([]);
        const mentions = mentionsIn(canvas);
        expect(mentions.every((mention) => mention === "@U0ZED0001")).toBe(true);
        if (!named) expect(mentions).toEqual([]);
      }),
      { seed: 16, numRuns: 150 },
    );
  });

  it("shows every link's target as text, in the canvas and in the thread alike", () => {
    fc.assert(
      fc.property(note, (markdown) => {
        // Targets as GFM finds them; the thread is read the same way, the canvas both ways.
        const [, threadSeen] = visibleTexts(showLinkTargets(markdown));
        const canvasSeen = visibleTexts(toCanvasMarkdown(markdown, [])).map(unfused);
        const seenBy = [...canvasSeen, threadSeen ?? ""];
        for (const url of linkTargetsOf(markdown)) {
          for (const seen of seenBy) expect(seen).toContain(shown(url));
        }
      }),
      { seed: 17, numRuns: 150 },
    );
  });
});

describe("the thread and the canvas", () => {
  it("show the same link targets for a note", () => {
    const sample = [
      "# Q3 planning",
      "",
      "- Read [the plan](https://plan.example/q3) and ![the chart](https://img.example/c.png).",
      "- [Reset your SSO password](https://evil.example/login), see [the FAQ][faq] and [Budget].",
      "- Ask ![Lan](@U0EVIL001) in ![](#C0EVIL001); <https://auto.example/x> and www.docs.example.",
      "- <https://slack.example/x|the Slack link> and [a [nested] label](https://n.example).",
      "",
      "[faq]: https://faq.example/sso",
      "[budget]: <https://budget.example/2024> 'Budget'",
    ].join("\n");
    const targets = (markdown: string) => {
      const [, seen] = visibleTexts(markdown);
      return (seen ?? "").match(/(?:https?:\/\/|www\.|[@#])[^\s()]*[^\s().,;]/g)?.sort() ?? [];
    };
    const thread = targets(showLinkTargets(sample));
    const canvas = targets(toCanvasMarkdown(sample, []));
    expect(canvas).toEqual(thread);
    expect(thread).toEqual([
      "#C0EVIL001",
      "@U0EVIL001",
      "https://auto.example/x",
      "https://budget.example/2024",
      "https://evil.example/login",
      "https://faq.example/sso",
      "https://img.example/c.png",
      "https://n.example",
      "https://plan.example/q3",
      "https://slack.example/x",
      "www.docs.example",
    ]);
    expect(canvasViolations(toCanvasMarkdown(sample, []))).toEqual([]);
  });
});
