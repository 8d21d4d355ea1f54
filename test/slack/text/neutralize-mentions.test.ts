import { describe, expect, it } from "vitest";
import {
  hasControlChars,
  neutralizeMentions,
  stripControlChars,
} from "../../../src/slack/text/index.ts";

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
