import { describe, expect, it } from "vitest";
import { stripBidiControls, stripInvisibleChars } from "../../src/text/index.ts";

const ALL_LISTED = [
  ...Array.from({ length: 5 }, (_, i) => 0x200b + i), // zero-width space … RLM
  ...Array.from({ length: 5 }, (_, i) => 0x202a + i), // LRE … RLO
  ...Array.from({ length: 5 }, (_, i) => 0x2060 + i), // word joiner … invisible plus
  ...Array.from({ length: 4 }, (_, i) => 0x2066 + i), // LRI … PDI
  0xfeff,
].map((code) => String.fromCodePoint(code));

describe("stripInvisibleChars", () => {
  it.each(ALL_LISTED.map((char) => [char.codePointAt(0)?.toString(16), char]))(
    "removes U+%s from a name",
    (_, char) => {
      expect(stripInvisibleChars(`Lan${char} Anh`)).toBe("Lan Anh");
    },
  );

  it("also removes tag characters, separators and fillers that show as nothing", () => {
    expect(stripInvisibleChars("A\u{E0041}\u2028B\u3164C\u00ADD")).toBe("ABCD");
  });

  it("keeps letters, accents and ordinary spaces", () => {
    expect(stripInvisibleChars("Nguyễn Thị Lan · Ali Ağa · 李雷")).toBe(
      "Nguyễn Thị Lan · Ali Ağa · 李雷",
    );
  });
});

describe("stripBidiControls", () => {
  it("removes embeddings, overrides and isolates but keeps marks and joiners", () => {
    const text = "\u202Egpj.exe\u202C \u2067x\u2069 \u200Fשלום\u200E 👩\u200D💻 a\u200Bb";
    expect(stripBidiControls(text)).toBe("gpj.exe x \u200Fשלום\u200E 👩\u200D💻 a\u200Bb");
  });
});
