import { describe, expect, it } from "vitest";
import { toCanvasMarkdown } from "../../../src/slack/text/canvas-markdown.ts";

describe("toCanvasMarkdown", () => {
  it("keeps what a canvas takes and turns deeper headings into bold lines, dropping nothing", () => {
    const note = "# Notes\n## Decisions\n### Budget\n#### Detail\n###### Deeper ##\n- item\n";
    expect(toCanvasMarkdown(note, [])).toBe(
      "# Notes\n## Decisions\n### Budget\n**Detail**\n**Deeper**\n- item\n",
    );
  });

  it("leaves code blocks as they are", () => {
    const note = "```\n#### not a heading\n![x](y)\n```\n#### a heading";
    expect(toCanvasMarkdown(note, [])).toBe("```\n#### not a heading\n![x](y)\n```\n**a heading**");
  });

  it("turns images into links, so the service cannot spell a canvas mention", () => {
    expect(toCanvasMarkdown("See ![](@U0EVIL001) and ![chart](https://x.test/c.png)", [])).toBe(
      "See [](@U0EVIL001) and [chart](https://x.test/c.png)",
    );
  });

  it("neutralises the service's Slack mentions and mentions only the people given", () => {
    const out = toCanvasMarkdown("<!here> Bob Tran owns it, <@U0EVIL001> reviews", [
      { name: "Bob Tran", userId: "U0BOB0001" },
    ]);
    expect(out).toContain("![](@U0BOB0001) owns it");
    expect(out).not.toContain("<!here>");
    expect(out).not.toContain("<@U0EVIL001>");
  });
});
