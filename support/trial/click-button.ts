import type { FakeMessage } from "../fake-slack/fake-slack-types.ts";
import { blockActionPayload } from "../fake-slack/slack-payloads.ts";
import { type StandIn, WORKSPACE } from "./stand-in.ts";

/** A button of a bot message: its action id, its label and its value (the job id). */
export interface MessageButton {
  actionId: string;
  label: string;
  value: string;
}

/** The buttons of a message, in the order Slack shows them. */
export function buttonsOf(message: FakeMessage): MessageButton[] {
  const blocks = (message.blocks ?? []) as { type?: string; elements?: unknown[] }[];
  return blocks
    .filter((b) => b.type === "actions")
    .flatMap((b) => (b.elements ?? []) as Record<string, unknown>[])
    .filter((e) => e.type === "button" && typeof e.action_id === "string")
    .map((e) => ({
      actionId: String(e.action_id),
      label: String((e.text as { text?: unknown } | undefined)?.text ?? e.action_id),
      value: typeof e.value === "string" ? e.value : "",
    }));
}

/**
 * Alice clicks the button `actionId` of `message`: a `block_actions` payload with the
 * message as Slack echoes it and a `response_url` on the stand-in (its replies are printed),
 * delivered the stand-in's way. Rejects when the bot does not acknowledge it.
 */
export async function clickButton(
  standIn: StandIn,
  message: FakeMessage,
  actionId: string,
): Promise<void> {
  const button = buttonsOf(message).find((b) => b.actionId === actionId);
  if (button === undefined) throw new Error(`the message has no ${actionId} button`);
  const { channel, metadata: _metadata, ...echoed } = message;
  const payload = blockActionPayload({
    actionId,
    value: button.value,
    user: WORKSPACE.alice.id,
    channel,
    messageTs: message.ts,
    teamId: standIn.fake.teamId,
    responseUrl: standIn.fake.responseUrl(),
    message: echoed,
    blockId: blockIdOf(message, actionId),
    ...(message.thread_ts === undefined ? {} : { threadTs: message.thread_ts }),
  });
  const answer = await standIn.deliver().interaction(payload);
  if (!answer.acked) throw new Error(`the bot did not acknowledge the click on ${button.label}`);
}

function blockIdOf(message: FakeMessage, actionId: string): string {
  const blocks = (message.blocks ?? []) as {
    block_id?: string;
    elements?: { action_id?: string }[];
  }[];
  return (
    blocks.find((b) => b.elements?.some((e) => e.action_id === actionId))?.block_id ?? "actions"
  );
}
