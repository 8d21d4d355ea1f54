import type { WebClient } from "@slack/web-api";
import { describe, expect, it, vi } from "vitest";
import { SlackResponder } from "../../src/slack/responder/slack-responder.ts";
import { createFakeWebClient, platformError } from "../../support/helpers/fake-web-client.ts";
import { defaultWorkspace, recordingLogger } from "../../support/helpers/listener-kit.ts";

function responderOver() {
  const slack = createFakeWebClient(defaultWorkspace());
  const update = vi.fn(async (_args: Record<string, unknown>) => ({ ok: true }));
  const client = { ...slack, views: { ...slack.views, update } };
  const { logger, lines } = recordingLogger();
  const responder = new SlackResponder({ client: client as unknown as WebClient, logger });
  return { slack, update, responder, lines };
}

const reply = { text: "Only you can see this.", blocks: [] };

describe("SlackResponder", () => {
  it("throws Slack's refusal of an ephemeral message, and only logs it when told to", async () => {
    const { slack, responder, lines } = responderOver();
    const target = { channel: "C0RESPOND1", user: "U0ALICE001" };
    slack.chat.postEphemeral.mockRejectedValueOnce(platformError("user_not_in_channel"));
    await expect(responder.ephemeral(target, reply)).rejects.toThrow("user_not_in_channel");
    slack.chat.postEphemeral.mockRejectedValueOnce(platformError("channel_not_found"));
    await expect(responder.tellUser(target, reply)).resolves.toBeUndefined();
    expect(lines.map((l) => l.msg)).toContain("could not send an ephemeral reply");
  });

  it("sends the thread of an ephemeral message only when there is one", async () => {
    const { slack, responder } = responderOver();
    await responder.ephemeral({ channel: "C0RESPOND1", user: "U0ALICE001" }, reply);
    await responder.ephemeral(
      { channel: "C0RESPOND1", user: "U0ALICE001", threadTs: "1.2" },
      reply,
    );
    const sent = slack.chat.postEphemeral.mock.calls.map(([args]) => args);
    expect(sent[0]).not.toHaveProperty("thread_ts");
    expect(sent[1]).toMatchObject({ thread_ts: "1.2" });
  });

  it("updates a modal with the hash it was given, and without one when none was", async () => {
    const { update, responder } = responderOver();
    const view = {
      type: "modal" as const,
      title: { type: "plain_text" as const, text: "Notes" },
      blocks: [],
    };
    await responder.updateModal("V0MODAL001", view, "hash-1");
    await responder.updateModal("V0MODAL001", view);
    expect(update.mock.calls[0]?.[0]).toMatchObject({ view_id: "V0MODAL001", hash: "hash-1" });
    expect(update.mock.calls[1]?.[0]).not.toHaveProperty("hash");
  });

  it("starts a thread with a message of the bot's own and gives its ts", async () => {
    const { slack, responder } = responderOver();
    const ts = await responder.startThread("C0RESPOND1", "Notes for *talk.m4a*");
    expect(ts).toMatch(/^\d+\.\d{6}$/);
    expect(slack.chat.postMessage).toHaveBeenCalledWith({
      channel: "C0RESPOND1",
      text: "Notes for *talk.m4a*",
      mrkdwn: true,
    });
  });
});
