import { describe, expect, it } from "vitest";
import { escapeMrkdwn, safeMrkdwn } from "../../../src/slack/text/neutralize-mentions.ts";

describe("escapeMrkdwn", () => {
  it("escapes &, < and >, ampersands first so nothing is escaped twice", () => {
    expect(escapeMrkdwn("a & b < c > d")).toBe("a &amp; b &lt; c &gt; d");
    expect(escapeMrkdwn("&lt;")).toBe("&amp;lt;");
  });

  it("turns control sequences into text", () => {
    expect(escapeMrkdwn("<!channel> <@U123|bob> <#C1> <https://x.test|click>")).toBe(
      "&lt;!channel&gt; &lt;@U123|bob&gt; &lt;#C1&gt; &lt;https://x.test|click&gt;",
    );
  });

  it("leaves other text alone", () => {
    expect(escapeMrkdwn("Tuần này: *ngân sách* — 40%")).toBe("Tuần này: *ngân sách* — 40%");
  });
});

describe("safeMrkdwn", () => {
  it("also defuses bare broadcasts and strips control characters", () => {
    const safe = safeMrkdwn("@here <!here> a\u0007b");
    expect(safe).not.toMatch(/@here|<!/);
    expect(safe).not.toContain("\u0007");
    expect(safe).toContain("ab");
  });

  it("shows character references as typed (mrkdwn decodes only &amp; &lt; &gt;) and drops bidi overrides", () => {
    expect(safeMrkdwn("&#60;!here&#62; &commat;here &lt;!channel&gt; \u202Egpj.exe")).toBe(
      "&amp;#60;!here&amp;#62; &amp;commat;here &amp;lt;!channel&amp;gt; gpj.exe",
    );
  });

  it("defuses a bare broadcast with invisible characters inside", () => {
    expect(safeMrkdwn("@\u200Bhere @ch\u2060annel")).toBe("＠\u200Bhere ＠ch\u2060annel");
  });
});
