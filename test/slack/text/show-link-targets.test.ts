import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { showLinkTargets } from "../../../src/slack/text/show-link-targets.ts";
import { nodesOf, plainText, readings } from "../../../support/helpers/read-canvas.ts";
import { hugeText, nastyText } from "../../../support/hostile/arbitraries.ts";

describe("showLinkTargets", () => {
  it.each([
    ["[Quarterly report](https://evil.example/x)", "Quarterly report (https://evil.example/x)"],
    [
      "see <https://evil.example|Quarterly report> now",
      "see Quarterly report (https://evil.example) now",
    ],
    ["&lt;https://evil.example&#124;label&gt;", "label (https://evil.example)"],
    ["&#60;https://evil.example&vert;label&#x3E;", "label (https://evil.example)"],
    ["[https://a.example](https://a.example)", "https://a.example"],
    ["<https://a.example|https://a.example>", "https://a.example"],
    ['![logo](https://x.example/i.png "Logo")', "logo (https://x.example/i.png)"],
    ["[a [b] c](https://e.example)", "a [b] c (https://e.example)"],
    ["[a [b [c] d] e](https://e.example)", "a [b [c] d] e (https://e.example)"],
    [
      "[![img](https://i.example)](https://l.example)",
      "img (https://i.example) (https://l.example)",
    ],
    ["[Quarterly\nreport](https://e.example)", "Quarterly\nreport (https://e.example)"],
    ["[a](<https://x.example/a b>)", "a (https://x.example/a b)"],
    ["[a](https://x.example/(y)) tail", "a (https://x.example/(y)) tail"],
    ["[a]( https://x.example\n 'title' )", "a (https://x.example)"],
    ["[a]()", "a"],
    ["[](https://x.example)", "https://x.example"],
    ["[a\\](https://x.example)", "[a\\](https://x.example)"],
    ["[mail](mailto:lan@example.com)", "mail (mailto:lan@example.com)"],
    ["[a](https://e\u202E.example/\u200Bx)", "a (https://e.example/x)"],
    [
      "[a [b](https://b.example) c](https://e.example)",
      "a b (https://b.example) c (https://e.example)",
    ],
    ["[x][]()(https://evil.example)", "x (https://evil.example)"],
    [
      "![a \\[b\\](https://evil.example)](https://i.example)",
      "a b (https://evil.example) (https://i.example)",
    ],
    // A bare URL (GFM) and a table cell do not hide a link CommonMark reads.
    [
      "https://a.example/x)![see](https://evil.example)",
      "https://a.example/x)see (https://evil.example)",
    ],
    ["| [a | b](https://evil.example) |\n|---|---|", "| a | b (https://evil.example) |\n|---|---|"],
    // GFM reads the indented lines after a footnote as its text, CommonMark as code.
    [
      "[^r]: https://a.example\n\n    [a\nb](https://evil.example)",
      "[^r]: https://a.example\n\n    a\nb (https://evil.example)",
    ],
    // CommonMark ends a target only at an ASCII space or a control character.
    ["[a](https://evil.example/\u00A0x)", "a (https://evil.example/\u00A0x)"],
  ])("shows where %j goes", (markdown, expected) => {
    expect(showLinkTargets(markdown)).toBe(expected);
  });

  it("shows reference links' targets, full, collapsed and shortcut", () => {
    const note = [
      "See [the report][r1], [Budget][] and [Plan].",
      "",
      "[r1]: https://evil.example/one",
      '[budget]: <https://evil.example/two> "Budget"',
      "  [PLAN]:",
      "    https://evil.example/three",
    ].join("\n");
    const shown = showLinkTargets(note).split("\n")[0];
    expect(shown).toBe(
      "See the report (https://evil.example/one), Budget (https://evil.example/two) and " +
        "Plan (https://evil.example/three).",
    );
  });

  it.each([
    ["`[c](https://code.example)`", "`[c] (https://code.example)`"],
    ["```\n[c](https://code.example)\n```", "```\n[c] (https://code.example)\n```"],
    ["<div>\n[h](https://html.example)\n</div>", "<div>\n[h] (https://html.example)\n</div>"],
    [
      "    [Plan] in code\n\n[Plan]\n\n[plan]: https://evil.example",
      "    [Plan] (https://evil.example) in code\n\nPlan (https://evil.example)\n\n" +
        "[plan]: https://evil.example",
    ],
  ])(
    "shows the target of a link in code or HTML, which another reader may read as text: %j",
    (note, expected) => {
      expect(showLinkTargets(note)).toBe(expected);
    },
  );

  it.each([
    [
      "See[^1] and ![^1].\n\n[^1]: https://evil.example",
      "See^1 (https://evil.example) and ^1 (https://evil.example).\n\n[^1]: https://evil.example",
    ],
    [
      "- [x] done\n\n[x]: https://evil.example",
      "- x (https://evil.example) done\n\n[x]: https://evil.example",
    ],
  ])(
    "shows the target of what CommonMark alone reads as a link (a footnote, a task box): %j",
    (note, expected) => {
      expect(showLinkTargets(note)).toBe(expected);
    },
  );

  it.each([
    [
      "[Docs]:\n\n[docs]: https://evil.example",
      "Docs (https://evil.example):\n\n[docs]: https://evil.example",
    ],
    [
      "Intro\n[docs]: https://decoy.example\n\n[Docs]\n\n[docs]: https://evil.example",
      "Intro\ndocs (https://evil.example): https://decoy.example\n\nDocs (https://evil.example)\n\n" +
        "[docs]: https://evil.example",
    ],
  ])("reads a `[label]:` that cannot be a definition as the link it is: %j", (note, expected) => {
    expect(showLinkTargets(note)).toBe(expected);
  });

  it.each([
    "<https://auto.example> and https://bare.example/x",
    "[not a link] (https://x.example) and [undefined][ref]",
    '[a](https://e.example "unclosed title)',
    "<!here|x> <@U123|bob> <#C123|general>",
    "a < b | c > d",
    "Tuần này: *ngân sách* — 40%",
  ])("leaves %j as it is", (markdown) => {
    expect(showLinkTargets(markdown)).toBe(markdown);
  });

  it("leaves no link that hides its target in a generated note", () => {
    const text = fc.stringMatching(/^[A-Za-z][A-Za-z ,.']{0,19}$/);
    const url = fc
      .tuple(fc.domain(), fc.stringMatching(/^[a-z0-9/_-]{0,12}$/))
      .map(([host, path]) => `https://${host}/${path}`);
    const link = fc.oneof(
      fc.tuple(text, url).map(([t, u]) => ({ source: `[${t}](${u})`, url: u })),
      fc.tuple(text, url).map(([t, u]) => ({ source: `![${t}](<${u}> "t")`, url: u })),
      fc.tuple(text, url).map(([t, u]) => ({ source: `<${u}|${t}>`, url: u })),
      fc.tuple(text, url).map(([t, u]) => ({ source: `&lt;${u}&#124;${t}&gt;`, url: u })),
      fc
        .tuple(text, url, url)
        .map(([t, u, v]) => ({ source: `[${t} ![${t}](${u})](${v})`, url: `${u} ${v}` })),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(text, link), { minLength: 1, maxLength: 8 }), (pieces) => {
        const note = pieces.map(([prose, l]) => `${prose} ${l.source}`).join("\n");
        const out = showLinkTargets(note);
        expect(out).not.toMatch(/\]\(|\|[^<>]*>|&lt;|&#124;/);
        for (const [, l] of pieces) {
          for (const target of l.url.split(" ")) expect(out).toContain(`(${target})`);
        }
        expect(out.length).toBeLessThanOrEqual(note.length);
      }),
      { numRuns: 500 },
    );
  });

  it("leaves no link or image that hides its target to a CommonMark or a GFM reader", () => {
    const target = fc.constantFrom(
      "https://evil.example/login",
      "https://a.example/x_(y)",
      "@U0EVIL001",
    );
    const label = fc.constantFrom("r", "x y", "^1");
    const word = fc.constantFrom("see", "*a*", "a\nb", "x]", "[y", "`c`", "", "](", "![", "\\");
    const piece = fc.oneof(
      word,
      fc.tuple(word, target).map(([t, u]) => `[${t}](${u})`),
      fc.tuple(word, target).map(([t, u]) => `![${t}](<${u}> "title")`),
      fc.tuple(word, label).map(([t, l]) => `![${t}][${l}]`),
      fc.tuple(word, label).map(([t, l]) => `[${t}][${l}]`),
      label.map((l) => `[${l}]`),
      fc.tuple(label, target).map(([l, u]) => `\n\n[${l}]: ${u}\n`),
      fc.tuple(label, target).map(([l, u]) => `\n\n[^${l}]: ${u}\n`),
      fc.constantFrom("\n```\n", "\n    ", "<div>", "<!-- c", "-->", "`", "https://b.example/"),
      fc.constantFrom("\n# ", "\n- ", "\n> ", "\n| a | b |\n|---|---|\n| ", " | ", "\n\n"),
    );
    const note = fc
      .array(fc.tuple(piece, fc.constantFrom("", " ", "\n", "\n\n")), { maxLength: 14 })
      .map((pieces) => pieces.map(([markdown, gap]) => markdown + gap).join(""));
    fc.assert(
      fc.property(note, (markdown) => {
        expect(hiddenTargets(showLinkTargets(markdown))).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });

  it("changes nothing without a bracket or an ampersand, and never throws", () => {
    fc.assert(
      fc.property(fc.oneof(nastyText(300), hugeText), (input) => {
        const out = showLinkTargets(input);
        if (!/[[<&]/.test(input)) expect(out).toBe(input);
      }),
      { numRuns: 500 },
    );
  });

  it.each([
    ["unclosed targets", "[a](".repeat(50_000)],
    ["escaped parentheses", "[a](b\\)".repeat(30_000)],
    ["unclosed titles", '[a](x "'.repeat(30_000)],
    ["deep nesting", `${"[".repeat(50_000)}${"](x)".repeat(50_000)}`],
    ["labels", `${"[a][".repeat(30_000)}\n\n[a]: https://x.example`],
    ["Slack links", "<a|".repeat(50_000)],
  ])("stays linear on a note full of %s", (_, note) => {
    // Timed against an ordinary note of the same length in CPU time, so a loaded machine
    // slows neither: linear work stays within a small multiple of it (≤ 10× here), a
    // backtracking pattern is thousands of times slower at this length.
    const ordinary = "[a](https://x.example/b) and some words ".repeat(note.length / 40 + 1);
    const plainMs = timed(() => showLinkTargets(ordinary.slice(0, note.length)));
    const ms = timed(() => showLinkTargets(note));
    expect(ms).toBeLessThan(50 * plainMs + 100);
  });
});

/** How much CPU time `work` took, in milliseconds. */
function timed(work: () => unknown): number {
  const started = process.cpuUsage();
  work();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000;
}

/**
 * The links and images of a text that a reader, CommonMark or GFM, would follow without
 * seeing where they go: an image, a link whose text is not its target, a reference not
 * followed by ` (target)`.
 */
function hiddenTargets(text: string): string[] {
  const found: string[] = [];
  for (const tree of readings(text)) {
    const definitions = new Map<string, string>();
    for (const node of nodesOf(tree)) {
      if (node.type === "definition" && !definitions.has(node.identifier)) {
        definitions.set(node.identifier, node.url.trim());
      }
    }
    for (const parent of nodesOf(tree)) {
      if (!("children" in parent)) continue;
      parent.children.forEach((node, index) => {
        if (node.type === "image" || node.type === "imageReference") found.push(node.type);
        if (node.type === "link") {
          const shown = plainText(node);
          if (![shown, `http://${shown}`].includes(node.url)) found.push(`link to ${node.url}`);
        }
        if (node.type !== "linkReference") return;
        const next = parent.children[index + 1];
        const suffix = ` (${definitions.get(node.identifier)})`;
        if (next?.type !== "text" || !next.value.startsWith(suffix)) found.push(`[${node.label}]`);
      });
    }
  }
  return found;
}
