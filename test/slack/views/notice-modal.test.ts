import { describe, expect, it } from "vitest";
import { VIEWS } from "../../../src/slack/ids.ts";
import { LOCALES } from "../../../src/slack/messages/catalog.ts";
import { buildPermissionRefusal } from "../../../src/slack/views/command-replies.ts";
import {
  buildLoadingModal,
  buildNoticeModal,
  errorsReply,
  sentenceReply,
} from "../../../src/slack/views/notice-modal.ts";
import { expectModalLimits, expectNoLiveMentions } from "../../../support/helpers/slack-limits.ts";

const identity = {
  callbackId: VIEWS.newNotes,
  privateMetadata: JSON.stringify({ channelId: "C0CHAN", locale: "en" }),
  title: "New meeting notes",
};

describe("buildLoadingModal", () => {
  it.each(LOCALES)(
    "is the same modal, saying it is on its way, with nothing to submit (%s)",
    (locale) => {
      const view = buildLoadingModal(identity, locale);
      expectModalLimits(view);
      expect(view).toMatchObject({
        type: "modal",
        callback_id: VIEWS.newNotes,
        private_metadata: identity.privateMetadata,
        title: { text: "New meeting notes" },
      });
      expect(view).not.toHaveProperty("submit");
      expect(view.blocks.every((block) => block.type !== "input")).toBe(true);
    },
  );
});

describe("buildNoticeModal", () => {
  it("shows each reply's blocks, and can only be closed", () => {
    const refusal = buildPermissionRefusal("channel_member", "settings", "en");
    const view = buildNoticeModal(identity, "en", [refusal]);
    expectModalLimits(view);
    expect(view.blocks).toEqual(refusal.blocks);
    expect(view).not.toHaveProperty("submit");
    expect(view.close?.text).toBe("Cancel");
  });

  it("writes a sentence as inert mrkdwn", () => {
    const view = buildNoticeModal(identity, "en", [sentenceReply("Ask <!here> & <@U1>")]);
    expectNoLiveMentions(view);
    expect(JSON.stringify(view.blocks)).toContain("Ask &lt;!here&gt; &amp; &lt;@U1&gt;");
  });

  it("says field errors it cannot show under their inputs, each once", () => {
    const replies = errorsReply(
      { a: "Choose a channel.", b: "Choose a channel.", c: "Too long." },
      "en",
    );
    expect(replies.map((reply) => reply.text)).toEqual([
      "I could not do that:",
      "Choose a channel.",
      "Too long.",
    ]);
  });

  it("stays within Slack's 100 blocks whatever it is given", () => {
    const many = Array.from({ length: 150 }, (_, i) => sentenceReply(`Line ${i}`));
    expectModalLimits(buildNoticeModal(identity, "vi", many));
  });
});
