import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  hasControlChars,
  neutralizeMentions,
  stripControlChars,
} from "../../../src/slack/text/neutralize-mentions.ts";
import { hiddenMention, liveMentions } from "../../../support/helpers/reader-view.ts";
import { hugeText, nastyText } from "../../../support/hostile/arbitraries.ts";

/** Slack acts on `<!…>`, `<@…>`, `<#…>` and, with link_names, on bare broadcasts. */
function expectInert(text: string) {
  expect(text).not.toMatch(/<[!@#]/);
  expect(text).not.toMatch(/@(channel|here|everyone)\b/i);
}

describe("neutralizeMentions", () => {
  it("leaves no live mention in the brief's example", () => {
    const out = neutralizeMentions("<!channel> hi <@U123>");
    expectInert(out);
    expect(out).toBe("‹!channel› hi ‹@U123›");
  });

  it.each([
    "<!channel>",
    "<!here>",
    "<!everyone>",
    "<!subteam^S0123|@team>",
    "<!here|here>",
    "<@U0ABC>",
    "<@W0ABC|bob>",
    "<#C0123>",
    "<#C0123|general>",
    "<!date^1392734382^{date}|Feb 18>",
  ])("makes %s inert", (sequence) => {
    expectInert(neutralizeMentions(`before ${sequence} after`));
  });

  it.each(["@channel", "@here", "@everyone", "@Here", "ping @channel!"])(
    "defuses the bare broadcast in %s",
    (text) => {
      expectInert(neutralizeMentions(text));
    },
  );

  it("keeps the length, so a split part stays within its size", () => {
    const text = "<!channel> @here <@U1> <#C1|x> text";
    expect(neutralizeMentions(text)).toHaveLength(text.length);
  });

  it("leaves ordinary angle brackets, emails and words alone", () => {
    const text = "a < b > c, mail lan@example.com, <https://example.com>, @channels";
    expect(neutralizeMentions(text)).toBe(text);
  });

  it("strips control characters but keeps tabs and newlines", () => {
    expect(neutralizeMentions("a\u0000b\u001bc\td\ne\r\n")).toBe("abc\td\ne\n");
  });
});

describe("neutralizeMentions on character references", () => {
  it.each([
    ["&lt;!channel&gt; hi", "‹!channel› hi"],
    ["&#60;!here&#62;", "‹!here›"],
    ["&#x3C;@U123&#x3E;", "‹@U123›"],
    ["&#X3c;@U123&#X3E;", "‹@U123›"],
    ["&#0000060;!here&#00062;", "‹!here›"],
    ["&#x00003c;#C0123|general&#x3e;", "‹#C0123|general›"],
    ["&LT;&excl;everyone&GT;", "‹&excl;everyone›"],
    ["<&#33;here>", "‹&#33;here›"],
    ["&lt;&#64;U123>", "‹&#64;U123›"],
    ["<&commat;U123&gt;", "‹&commat;U123›"],
    ["&lt;&num;C0123&gt;", "‹&num;C0123›"],
    ["&lt;!subteam^S0123|@team&gt;", "‹!subteam^S0123|@team›"],
    ["&lt!here&gt", "‹!here›"],
    ["&#60!here&#62", "‹!here›"],
    ["<\u200B!here>", "‹\u200B!here›"],
    ["&lt;&#8203;!here&gt;", "‹&#8203;!here›"],
    ["&lt;!chan", "‹!chan"],
  ])("makes %j inert as %j", (text, expected) => {
    const out = neutralizeMentions(text);
    expect(out).toBe(expected);
    expect(liveMentions(out)).toEqual([]);
  });

  it.each([
    ["&commat;here", "＠here"],
    ["&#64;channel", "＠channel"],
    ["&#x40;EVERYONE", "＠EVERYONE"],
    ["@&#8203;channel", "＠&#8203;channel"],
    ["@\u200Bhere", "＠\u200Bhere"],
    ["@h&#101;re", "＠h&#101;re"],
    ["@he\u2060re!", "＠he\u2060re!"],
  ])("defuses the broadcast hidden in %j", (text, expected) => {
    expect(neutralizeMentions(text)).toBe(expected);
  });

  it("leaves references that show something harmless, and double-encoded text, alone", () => {
    const text =
      "R&amp;D &lt; 5 &gt; 3 &#169; &amp;lt;!here&amp;gt; &amp;commat;here &#64;channels";
    expect(neutralizeMentions(text)).toBe(text);
  });

  it("removes bidi overrides and breaks a reference to one, or to a control character", () => {
    expect(neutralizeMentions("a\u202Egpj.exe\u2066b\u2069")).toBe("agpj.exeb");
    expect(neutralizeMentions("a &#x202E; b &#8238; c &#7;")).toBe(
      "a ＆#x202E; b ＆#8238; c ＆#7;",
    );
    // Removing `&#7;` would have joined `&` and `#60;` into a new `<`.
    expect(liveMentions(neutralizeMentions("&&#7;#60;!here>"))).toEqual([]);
  });

  it("keeps right-to-left marks and joiners, which languages and emoji need", () => {
    const text = "\u200Fשלום\u200E · 👩\u200D💻 · می\u200Cخواهم";
    expect(neutralizeMentions(text)).toBe(text);
  });

  it("leaves no mention a reader would see, however it is encoded or padded", () => {
    const text = fc
      .array(fc.oneof(hiddenMention, nastyText(20)), { minLength: 1, maxLength: 6 })
      .map((pieces) => pieces.join(""));
    fc.assert(
      fc.property(text, (input) => {
        const out = neutralizeMentions(input);
        expect(liveMentions(out)).toEqual([]);
        expect(out.length).toBeLessThanOrEqual(input.length);
        expect(neutralizeMentions(out)).toBe(out);
      }),
      { numRuns: 2000 },
    );
  });

  it("never makes any text longer, huge text included", () => {
    fc.assert(
      fc.property(fc.oneof(nastyText(200), hugeText), (input) => {
        expect(neutralizeMentions(input).length).toBeLessThanOrEqual(input.length);
      }),
      { numRuns: 300 },
    );
  });
});

describe("stripControlChars / hasControlChars", () => {
  it("removes DEL and C1 controls too", () => {
    expect(stripControlChars("x\u007fy\u0085z")).toBe("xyz");
  });

  it("counts tab and newline in a name, not in a text box", () => {
    expect(hasControlChars("Lan\tAnh")).toBe(true);
    expect(hasControlChars("Lan\nAnh")).toBe(true);
    expect(hasControlChars("Lan\nAnh\r\n\tx", { multiline: true })).toBe(false);
    expect(hasControlChars("Lan\u0007", { multiline: true })).toBe(true);
    expect(hasControlChars("Nguyễn Văn An")).toBe(false);
  });
});
