import fc from "fast-check";

/**
 * What a reader of a `markdown` block sees, as far as mentions go: character references
 * decoded once, as a CommonMark renderer does (numeric ones in any case and with leading
 * zeros, the named ones that spell Slack's control characters or invisible ones), and then
 * every invisible format character dropped — the worst a later parser could do with them.
 * Written apart from src/slack/text/read-glyphs.ts so the tests do not grade it by itself.
 */
export function readerView(text: string): string {
  return text
    .replace(/&#[xX]([0-9a-fA-F]+);?|&#(\d+);?|&([A-Za-z]+);/g, (whole, hex, dec, name) => {
      if (name !== undefined) return NAMED[String(name).toLowerCase()] ?? whole;
      const code = Number.parseInt(hex ?? dec, hex === undefined ? 10 : 16);
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff)
        ? String.fromCodePoint(code)
        : "\uFFFD";
    })
    .replace(/\p{Cf}/gu, "");
}

const NAMED: Record<string, string> = {
  lt: "<",
  gt: ">",
  amp: "&",
  excl: "!",
  commat: "@",
  num: "#",
  zerowidthspace: "\u200B",
  zwj: "\u200D",
  zwnj: "\u200C",
  nobreak: "\u2060",
};

/** The live mentions a reader's view holds: control sequences and bare broadcasts. */
export function liveMentions(text: string): string[] {
  const view = readerView(text);
  return [
    ...(view.match(/<[!@#][^\s>]{0,20}/g) ?? []),
    ...(view.match(/@(channel|here|everyone)\b/gi) ?? []),
  ];
}

const INVISIBLES = ["\u200B", "\u200D", "\u2060", "\uFEFF", "\u200E", "&#8203;", "&zwj;"];

/** One character as raw text or as any of its character references. */
function encoded(char: string): fc.Arbitrary<string> {
  const code = char.codePointAt(0) ?? 0;
  const named: Record<string, string[]> = {
    "<": ["&lt;", "&LT;"],
    ">": ["&gt;", "&GT;"],
    "!": ["&excl;"],
    "@": ["&commat;"],
    "#": ["&num;"],
  };
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant(char) },
    fc.nat({ max: 4 }).map((zeros) => `&#${"0".repeat(zeros)}${code};`),
    fc
      .tuple(fc.nat({ max: 3 }), fc.boolean(), fc.boolean())
      .map(([zeros, bigX, upper]) => {
        const hex = code.toString(16);
        return `&#${bigX ? "X" : "x"}${"0".repeat(zeros)}${upper ? hex.toUpperCase() : hex}`;
      })
      .map((reference) => `${reference};`),
    fc.constantFrom(...(named[char] ?? [char])),
  );
}

/** A string whose characters are each written raw or encoded, with invisibles in between. */
function spelled(text: string): fc.Arbitrary<string> {
  return fc
    .tuple(
      ...[...text].map((char) =>
        fc.tuple(
          encoded(char),
          fc.option(fc.constantFrom(...INVISIBLES), { freq: 4 }).map((i) => i ?? ""),
        ),
      ),
    )
    .map((pairs) => pairs.map(([char, invisible]) => char + invisible).join(""));
}

/**
 * Mentions hidden every way a Markdown reader would still see them: `&lt;!channel&gt;`,
 * `&#60;@U123&#x3E;`, `&commat;h&#101;re`, `@\u200Bchannel`, mixes of raw and encoded.
 */
export const hiddenMention: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(
      fc.constantFrom("!here", "!channel", "!everyone", "@U0BOB0001", "#C0E2E0001", "!subteam^S1"),
      fc.boolean(),
    )
    .chain(([body, closed]) => spelled(`<${body}${closed ? ">" : ""}`)),
  fc
    .tuple(fc.constantFrom("here", "channel", "everyone"), fc.array(fc.boolean(), { maxLength: 8 }))
    .map(([word, upper]) =>
      [...word].map((c, i) => ((upper[i] ?? false) ? c.toUpperCase() : c)).join(""),
    )
    .chain((word) => spelled(`@${word}`)),
);
