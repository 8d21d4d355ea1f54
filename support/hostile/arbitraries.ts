import fc from "fast-check";

/**
 * Generators of hostile values shared by the hostile suites: text that breaks naive
 * parsers and renderers, junk JSON, and values shaped like ids but not ids.
 */

/** Strings people and attackers type: mentions, paths, markup, JSON, bidi, NUL. */
export const NASTY_SNIPPETS = [
  "",
  " ",
  "\t",
  "../",
  "../../etc/passwd",
  "..\\..\\windows",
  "<!channel>",
  "<!here>",
  "<!everyone>",
  "<@U0BOB0001>",
  "<#C0E2E0001>",
  "<!subteam^S123|@team>",
  "@here",
  "@channel",
  "&amp;",
  "&lt;b&gt;",
  "*bold* _it_ ~s~ `code`",
  "```",
  "\u0000",
  "\u0007",
  "\u001b[31m",
  "\u007f",
  "\u0085",
  "\u202e",
  "\u200b",
  "\ufeff",
  "\ud800",
  "💥",
  "👩‍👩‍👧‍👦",
  "Nguyễn Thị Lan",
  "null",
  "undefined",
  "NaN",
  "{}",
  "[]",
  '{"__proto__":{"polluted":1}}',
  "%00",
  "%2e%2e%2f",
  "\r\n",
  "javascript:alert(1)",
  "https://evil.test/",
  "' OR 1=1 --",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, typed as is.
  "${process.env}",
  "constructor",
  "__proto__",
];

/** Control characters (C0, DEL, C1). */
export const controlChar = fc
  .oneof(fc.integer({ min: 0, max: 0x1f }), fc.integer({ min: 0x7f, max: 0x9f }))
  .map((code) => String.fromCharCode(code));

/**
 * Any code point, lone surrogates included, as fast-check's `unit: "binary"` draws them;
 * that unit first maps all 1.1 million code points into a table (0.8 s of CPU and 180 MB
 * in every worker that loads this file).
 */
const anyCodePoint = fc
  .integer({ min: 0, max: 0x10ffff })
  .map((code) => String.fromCodePoint(code));

const nastyTexts = new Map<number, fc.Arbitrary<string>>();

/**
 * Any text, biased to the nasty: any code points, graphemes, snippets, mixtures. Built once
 * per length and shared: building fast-check's grapheme strings maps the whole grapheme set
 * (a third of the hostile suites' CPU time when each use built its own).
 */
export function nastyText(maxLength = 80): fc.Arbitrary<string> {
  let text = nastyTexts.get(maxLength);
  if (text === undefined) {
    text = fc.oneof(
      {
        weight: 3,
        arbitrary: fc.array(nastyPiece, { maxLength: 6 }).map((parts) => parts.join("")),
      },
      { weight: 2, arbitrary: fc.string({ unit: anyCodePoint, maxLength }) },
      { weight: 1, arbitrary: fc.constantFrom(...NASTY_SNIPPETS) },
      { weight: 1, arbitrary: fc.json({ maxDepth: 2 }) },
    );
    nastyTexts.set(maxLength, text);
  }
  return text;
}

const nastyPiece = fc.oneof(
  fc.constantFrom(...NASTY_SNIPPETS),
  fc.string({ unit: anyCodePoint, maxLength: 8 }),
  fc.string({ unit: "grapheme", maxLength: 8 }),
  controlChar,
);

/** Text of thousands of characters (Slack's 3,000-character limits, 10 KB values). */
export const hugeText: fc.Arbitrary<string> = fc
  .tuple(
    fc.integer({ min: 3_001, max: 12_000 }),
    fc.constantFrom("x", "é", "💥", "<!here> ", "\u0000"),
  )
  .map(([length, unit]) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length));

/** JSON values of any shape, `null` included. */
export const junkJson: fc.Arbitrary<unknown> = fc.jsonValue({ maxDepth: 3 });

/** Values of the wrong type for a field that wants a string. */
export const notAString: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant([]),
  fc.constant({}),
  fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.string({ maxLength: 4 }), { maxKeys: 2 }),
);

/** A value that is not a job id: empty, huge, unicode, paths, JSON… */
export const notAJobId: fc.Arbitrary<string> = fc.oneof(
  fc.constant(""),
  nastyText(100),
  hugeText,
  fc.uuid(),
  fc.json({ maxDepth: 2 }),
);

/** Unique ids for things the fake or the app dedupes on (files, events). */
let counter = 0;
export function uniqueId(prefix: string): string {
  counter += 1;
  return `${prefix}${Date.now().toString(36).toUpperCase()}${counter.toString(36).toUpperCase()}`;
}

/** Extra junk fields for an object, never named like one of `reserved`. */
export function extraFields(reserved: readonly string[]): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .dictionary(fc.string({ minLength: 1, maxLength: 12 }), junkJson, { maxKeys: 3 })
    .map((extra) => {
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(extra)) {
        if (!reserved.includes(key) && key !== "__proto__") out[key] = value;
      }
      return out;
    });
}
