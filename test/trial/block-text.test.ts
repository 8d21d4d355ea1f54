import { describe, expect, it } from "vitest";
import { buildSettingsModal } from "../../src/slack/views/settings-modal.ts";
import { buildSpeakerModal } from "../../src/slack/views/speaker-modal.ts";
import { buildStatusMessage } from "../../src/slack/views/status-message.ts";
import { blocksText, mrkdwnText, viewText } from "../../support/trial/block-text.ts";
import { NOW, naming, quotes } from "../slack/views/fixtures.ts";

const names = new Map([
  ["U0ALICE01", "Alice Nguyen"],
  ["C0LOCAL01", "weekly-sync"],
]);
const nameOf = (id: string) => names.get(id);

describe("Block Kit as text", () => {
  it("draws the bot's speaker modal: title, each speaker's share and quotes, the inputs, the buttons", () => {
    const lines = viewText(buildSpeakerModal(naming(), { locale: "en", mode: "names", quotes }));
    expect(lines[0]).toBe("┌─ Modal: Name the speakers");
    expect(lines).toContain("│ *Speaker 1* · 45% of talk time");
    // Quotes keep their timestamps; a mention inside one is shown, never live.
    expect(lines.some((l) => /^│ > `00:12` Let's start with the roadmap/.test(l))).toBe(true);
    expect(lines).toContain(
      "│ Or type a name (optional): [✎ Name as it should appear in the notes]",
    );
    expect(lines).toContain("│ Slack member (optional): [👤 Choose a member ▾]");
    expect(lines.filter((l) => l.startsWith("│ Gender (optional): [Not specified ▾"))).toHaveLength(
      3,
    );
    expect(lines.at(-1)).toBe("└─ [Write notes] [Cancel]");
  });

  it("draws the status message's sentence and the buttons that apply now", () => {
    const { blocks } = buildStatusMessage(naming(), { locale: "en", now: NOW });
    const lines = blocksText(blocks);
    expect(lines[0]).toMatch(/^Heard 3 speakers\./);
    expect(lines.at(-1)).toBe("[Name speakers] [Skip] [Cancel]");
  });

  it("shows what a modal holds now: the option chosen, the boxes ticked, the channel by name", () => {
    const view = buildSettingsModal(
      { autoTranscribe: true },
      { locale: "en", channelId: "C0LOCAL01" },
    );
    const lines = viewText(view, nameOf);
    expect(lines.join("\n")).toContain("#weekly-sync");
    expect(lines.join("\n")).toMatch(/\(x\) On: every recording uploaded here gets notes/);
    expect(lines.join("\n")).toMatch(/\(x\) Put the notes in a canvas/);
    // 25 languages: the first few, then how many more.
    expect(lines.join("\n")).toMatch(/\[Detect automatically ▾ [^\]]+ \| … \d+ more\]/);
  });

  it("reads Slack's mrkdwn: people and channels by name, links as label and address, entities unescaped", () => {
    expect(mrkdwnText("<@U0ALICE01> in <#C0LOCAL01> &amp; <#C0OTHER|random>", nameOf)).toBe(
      "@Alice Nguyen in #weekly-sync & #random",
    );
    expect(mrkdwnText("<https://x.test/a|The notes> &lt;draft&gt; <!here>")).toBe(
      "The notes (https://x.test/a) <draft> @here",
    );
  });

  it("names a block it cannot draw rather than hide it", () => {
    expect(blocksText([{ type: "video", title: { type: "plain_text", text: "x" } }, 42])).toEqual([
      "[video block]",
      "[a block the renderer cannot read]",
    ]);
  });
});
