import { describe, expect, it } from "vitest";
import { ACTIONS, speakerBlock, VIEWS } from "../../src/slack/ids.ts";
import {
  ALICE,
  BOB,
  buttonOn,
  buttonValue,
  CHANNEL,
  eventually,
  noteParts,
  shareRecording,
  statusMessage,
  useStack,
} from "../../support/e2e/stack.ts";
import { viewSubmissionPayload } from "../../support/fake-slack/slack-payloads.ts";

/*
 * Issue 22: with "people named" on, a long note that names the picked person on every line
 * is delivered, every message within Slack's 12,000 characters of `markdown` ("Limit
 * 12,000 characters max.", docs.slack.dev/reference/block-kit/blocks/markdown-block) after
 * every rewrite — links shown, mentions inserted — and the person is mentioned only in the
 * note's prose: never in code, never in a link's text. (Before: the note was split at
 * ~11,500 characters and the names became `<@U…>` afterwards, so a part grew to 15,909
 * characters, Slack refused it, and the job failed after eight tries.)
 */

const MENTION = `<@${BOB}>`;
/** Bob, as the naming modal gives his name (users.info real name) and the note uses it. */
const NAME = "Bob Tran";

/** About 40,000 characters: every line names Bob; some in code, some in links. */
function longDialogText(): string {
  const lines: string[] = [];
  for (let i = 0; lines.join("\n").length < 40_000; i++) {
    if (i % 25 === 5) lines.push("```", `assign("${NAME}", ${i}); // ${NAME}`, "```");
    else if (i % 25 === 15) {
      lines.push(`${NAME} shared [${NAME}'s plan ${i}](https://plans.example/bob-tran/${i}).`);
    } else if (i % 25 === 20) lines.push(`${NAME} ran \`notify ${NAME}\` for item ${i}.`);
    else lines.push(`${NAME} takes item ${i}; ${NAME} reports back on Friday.`);
  }
  return lines.join("\n");
}

const stack = useStack();

describe("a long note naming the picked person on every line", () => {
  it("is delivered, each message within 12,000 characters, mentions only in prose", async () => {
    await stack.app.jobs.settings.set(stack.fake.teamId, CHANNEL, {
      autoTranscribe: true,
      mentions: true,
    });
    stack.emulator.knobs.dialogText = longDialogText();
    const { ts } = await shareRecording(stack, "all-hands.m4a");
    const { jobId } = await buttonOn(stack, ts, ACTIONS.nameSpeakers);
    const values = {
      [speakerBlock.user("speaker_1")]: { user: { type: "users_select", selected_user: BOB } },
    };
    const payload = viewSubmissionPayload({
      callbackId: VIEWS.speakerNames,
      privateMetadata: jobId,
      values,
      user: ALICE,
    });
    expect((await stack.deliver.interaction(payload)).acked).toBe(true);
    await eventually(
      () => stack.job(jobId),
      (job) => job?.stage === "done" || job?.stage === "failed",
      { timeoutMs: 60_000 },
    );
    await stack.settled();
    const job = await stack.job(jobId);
    expect(job?.stage).toBe("done");
    expect(buttonValue(statusMessage(stack.thread(ts)), ACTIONS.regenerate)).toBe(jobId);

    // Every message Slack accepted holds at most 12,000 characters of markdown.
    const parts = noteParts(stack.thread(ts));
    expect(parts.length).toBeGreaterThan(3);
    const texts = parts.map((m) =>
      ((m.blocks ?? []) as { type: string; text?: string }[])
        .filter((b) => b.type === "markdown")
        .map((b) => b.text ?? "")
        .join(""),
    );
    for (const text of texts) expect(text.length).toBeLessThanOrEqual(12_000);
    const refused = stack.fake.callsTo("chat.postMessage").filter((c) => c.error !== undefined);
    expect(refused.map((c) => c.error)).toEqual([]);

    const note = texts.join("\n");
    // Only Bob is mentioned, and many times: his name is gone from the prose.
    expect(note.match(/<[@!#][^>]*>/g)?.every((m) => m === MENTION)).toBe(true);
    expect(note.split(MENTION).length - 1).toBeGreaterThan(500);
    expect(note).not.toMatch(new RegExp(`(?:^|\\n)${NAME} takes item`));
    // Never in code: fenced blocks and inline code keep the name as written.
    const fences = note.match(/```\n[^`]*?\n```/g) ?? [];
    expect(fences.length).toBeGreaterThan(20);
    for (const fence of fences) {
      expect(fence).not.toContain("<@");
      expect(fence).toContain(NAME);
    }
    const inline = note.match(/`notify [^`]*`/g) ?? [];
    expect(inline.length).toBeGreaterThan(20);
    for (const code of inline) expect(code).toBe(`\`notify ${NAME}\``);
    // Never in a link's text: shown as `text (url)`, the name stays the name.
    const links = note.match(/[^\n(]*'s plan \d+ \(https:\/\/plans\.example\/[^)]+\)/g) ?? [];
    expect(links.length).toBeGreaterThan(20);
    for (const link of links) {
      expect(link).toMatch(new RegExp(`^${MENTION} shared ${NAME}'s plan \\d+ \\(`));
    }
  }, 120_000);
});
