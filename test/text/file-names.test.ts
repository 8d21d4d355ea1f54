import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { audioFormatOf } from "../../src/recordings/index.ts";
import { safeFileName } from "../../src/text/index.ts";
import { NASTY_SNIPPETS, nastyText } from "../../support/hostile/arbitraries.ts";

/** What every safe name must be, whatever came in. */
function expectSafe(name: string) {
  expect(name).not.toMatch(/[/\\]|%2f|%5c/i);
  expect(name).not.toMatch(/[\p{Cc}\p{Cf}\u2028\u2029]/u);
  expect(name).not.toMatch(/^[\s.]/);
  expect(name).not.toMatch(
    /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/,
  );
  expect(name.length).toBeGreaterThan(0);
  expect(name.length).toBeLessThanOrEqual(200);
  expect(Buffer.byteLength(name)).toBeLessThanOrEqual(255);
}

describe("safeFileName", () => {
  it.each([
    ["weekly-sync.m4a", "weekly-sync.m4a"],
    ["Họp tuần — Q3.mp3", "Họp tuần — Q3.mp3"],
    ["..%2F..\u202Eevil/3pm.m4a", "evil_3pm.m4a"],
    ["../../etc/passwd", "etc_passwd"],
    ["..\\..\\windows\\system32.wav", "windows_system32.wav"],
    ["a/b\\c.m4a", "a_b_c.m4a"],
    ["%2e%2e%2fx.m4a", "%2e%2e_x.m4a"],
    [".hidden.m4a", "hidden.m4a"],
    ["  ...  spaced.m4a  ", "spaced.m4a"],
    ["trailing dots....m4a", "trailing dots.m4a"],
    ["x\u0000y\u0007z\u001b[31m.mp3", "xyz[31m.mp3"],
    ["line\r\nbreak.mp3", "linebreak.mp3"],
    ["\u200Binvisible\u200D\uFEFF\u2066name\u2069.ogg", "invisiblename.ogg"],
    ["fake\u202Ereversed.exe.m4a", "fakereversed.exe.m4a"],
    ["broken\uD800half.mp3", "brokenhalf.mp3"],
    ["e\u0301.mp3", "é.mp3"],
    ["e\u200B\u0301.mp3", "é.mp3"],
    [".m4a", "recording.m4a"],
    ["/", "recording"],
    ["", "recording"],
    ["\u202E", "recording"],
  ])("makes %j safe as %j", (input, expected) => {
    const safe = safeFileName(input);
    expect(safe).toBe(expected);
    expectSafe(safe);
  });

  it("falls back to recording.<ext>, and uses the fallback extension only when there is none", () => {
    expect(safeFileName("", { fallbackExtension: "m4a" })).toBe("recording.m4a");
    expect(safeFileName("../..", { fallbackExtension: "docx" })).toBe("recording.docx");
    expect(safeFileName("Template", { fallbackExtension: "docx" })).toBe("Template.docx");
    expect(safeFileName("t.docx", { fallbackExtension: "m4a" })).toBe("t.docx");
    // A fallback that is not an extension is ignored rather than trusted.
    expect(safeFileName("t", { fallbackExtension: "a/b" })).toBe("t");
  });

  it("shortens a long name to 200 characters, keeping the extension and whole characters", () => {
    const long = safeFileName(`${"a".repeat(300)}.m4a`);
    expect(long).toBe(`${"a".repeat(196)}.m4a`);
    const emoji = safeFileName(`${"💥".repeat(150)}.wav`);
    expectSafe(emoji);
    expect(emoji.endsWith(".wav")).toBe(true);
    // 255 UTF-8 bytes: 62 four-byte emoji and the extension.
    expect(emoji).toBe(`${"💥".repeat(62)}.wav`);
    const vietnamese = safeFileName(`${"ễ".repeat(150)}.mp3`);
    expect(Buffer.byteLength(vietnamese)).toBeLessThanOrEqual(255);
    expect(vietnamese.endsWith("ễ.mp3")).toBe(true);
  });

  it("does not cut a long name's stem down to dots or spaces", () => {
    const name = safeFileName(`x${" ".repeat(300)}.m4a`);
    expect(name).toBe("x.m4a");
  });

  it("keeps any supported audio extension, so the Note Service still accepts the file", () => {
    fc.assert(
      fc.property(
        nastyText(300),
        fc.constantFrom("mp3", "m4a", "wav", "ogg", "flac", "webm"),
        (stem, format) => {
          const safe = safeFileName(`${stem}.${format}`);
          expectSafe(safe);
          expect(audioFormatOf(safe)).toBe(format);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("reads the extension after trailing dots are gone, so a second pass changes nothing", () => {
    // Regression: `@here..NaN.` became `@here..NaN`, and that became `@here.NaN`.
    expect(safeFileName("@here..NaN.")).toBe("@here.NaN");
    expect(safeFileName("meeting.m4a. ", { fallbackExtension: "m4a" })).toBe("meeting.m4a");
    // Cut to 200 characters, a long name's end read as an extension the second time.
    const long = safeFileName(`${"ab".repeat(95)}..${"ab".repeat(7)}`);
    expect(long.length).toBeLessThanOrEqual(200);
    expect(safeFileName(long)).toBe(long);
  });

  it("is safe and idempotent for any input", () => {
    const name = fc.oneof(
      nastyText(400),
      fc
        .array(fc.constantFrom(...NASTY_SNIPPETS, "/", "\\", ".", "..", "%2F", "\u202E", "a"), {
          maxLength: 12,
        })
        .map((pieces) => pieces.join("")),
    );
    fc.assert(
      fc.property(name, fc.option(fc.constantFrom("m4a", "docx")), (input, fallback) => {
        const safe = safeFileName(input, fallback === null ? {} : { fallbackExtension: fallback });
        expectSafe(safe);
        expect(safeFileName(safe)).toBe(safe);
      }),
      { numRuns: 1000 },
    );
  });
});
