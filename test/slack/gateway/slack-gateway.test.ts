import { WebClient } from "@slack/web-api";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import type { Job } from "../../../src/jobs/index.ts";
import { slackHostsOf } from "../../../src/slack/gateway/download-slack-file.ts";
import { SlackGateway } from "../../../src/slack/gateway/slack-gateway.ts";
import { docxFilename } from "../../../src/slack/gateway/thread-files.ts";
import { DEFAULT_PART_CHARS } from "../../../src/slack/text/split-markdown.ts";
import { buildNotePart } from "../../../src/slack/views/note-part.ts";
import { origin, source } from "../../../support/helpers/jobs-kit.ts";
import { liveMentions } from "../../../support/helpers/reader-view.ts";

const client = new WebClient("xoxb-test");
const gateway = new SlackGateway({
  clientsOf: () => ({ client, botToken: "xoxb-test" }),
  slackHosts: slackHostsOf("https://slack.com/api/"),
  logger: pino({ level: "silent" }),
});

describe("SlackGateway.splitNote", () => {
  it("shows link targets, then splits, so each part still fits one message", () => {
    const target = `https://evil.example/${"x".repeat(180)}`;
    const note = [
      "# Notes",
      "",
      ...Array.from(
        { length: 400 },
        (_, i) => `- Point ${i}: see [the report][r] and [${i}](${target})`,
      ),
      "",
      `[r]: ${target}`,
    ].join("\n");
    const parts = gateway.splitNote(note);
    expect(parts.join("").length).toBeGreaterThan(note.length);
    expect(parts.length).toBeGreaterThan(1);
    parts.forEach((part, index) => {
      expect(part.length).toBeLessThanOrEqual(DEFAULT_PART_CHARS);
      expect(part).not.toMatch(/\]\(|\]\[r\]/);
      const options = {
        index,
        total: parts.length,
        jobId: "j",
        delivery: 1,
        locale: "en",
      } as const;
      expect(() => buildNotePart(part, options)).not.toThrow();
    });
  });

  it("posts a hidden link and an encoded broadcast inert and showing the target", () => {
    const [part] = gateway.splitNote(
      "Budget &lt;!channel&gt; &#64;here, see [Quarterly report](https://evil.example/x)",
    );
    const posted = buildNotePart(part ?? "", {
      index: 0,
      total: 1,
      jobId: "j",
      delivery: 1,
      locale: "en",
    });
    const markdown = JSON.stringify(posted.blocks);
    expect(markdown).toContain("Quarterly report (https://evil.example/x)");
    expect(liveMentions(markdown)).toEqual([]);
  });
});

describe("SlackGateway.splitNote with people", () => {
  it("mentions them before splitting, so every posted part is within Slack's limit", () => {
    const people = [{ name: "Bob Tran", userId: "U0BOB0001" }];
    const lines = Array.from({ length: 700 }, (_, i) => `- Bob Tran: item ${i}, Bob Tran.`);
    const note = ["# Notes", "", "```", "Bob Tran", "```", "", ...lines].join("\n");
    const parts = gateway.splitNote(note, people);
    expect(parts.length).toBeGreaterThan(1);
    parts.forEach((part, index) => {
      const options = {
        index,
        total: parts.length,
        jobId: "j",
        delivery: 1,
        locale: "en",
      } as const;
      const posted = buildNotePart(part, { ...options, people });
      const markdown = (posted.blocks[0] as { text: string }).text;
      expect(markdown.length).toBeLessThanOrEqual(12_000);
      expect(markdown).not.toContain("- Bob Tran");
    });
    expect(parts.join("\n")).toContain("```\nBob Tran\n```");
  });
});

describe("docxFilename", () => {
  it("names the DOCX after a safe recording name, even one stored before names were safe", () => {
    const job: Job = {
      id: "j",
      stage: "queued",
      createdAt: 0,
      updatedAt: 0,
      stageStartedAt: 0,
      attempts: 0,
      origin: origin(),
      options: {},
      source: source({ filename: `..\\..\\\u202Eevil\u200Bx${"💥".repeat(40)}.m4a` }),
    };
    // 80 UTF-16 units of stem cut a surrogate pair in two; the lone half goes too.
    expect(docxFilename(job)).toBe(`evilx${"💥".repeat(33)} - notes.docx`);
  });
});
