import { ACTIONS, VIEWS } from "../../src/slack/ids.ts";
import type { FakeMessage } from "../fake-slack/fake-slack-types.ts";
import { fileShareMessageEvent } from "../fake-slack/slack-payloads.ts";
import type { Asker } from "./asker.ts";
import { buttonsOf, clickButton } from "./click-button.ts";
import { fillSpeakerModal, type OpenModal } from "./fill-modal.ts";
import type { TrialRecording } from "./recordings.ts";
import type { Say, SlackWatch } from "./slack-watch.ts";
import { type StandIn, WORKSPACE } from "./stand-in.ts";
import { waitFor } from "./wait-for.ts";

/** What the trial needs to walk a recording through the bot. */
export interface JourneyContext {
  standIn: StandIn;
  watch: SlackWatch;
  asker: Asker;
  say: Say;
  /** The longest the trial waits for one step of the bot (the note: transcription and all). */
  stepTimeoutMs: number;
}

/** How a recording's journey ended, and its thread. */
export interface JourneyEnd {
  threadTs: string;
  /** The notes are ready (the status offers Regenerate); else canceled or failed. */
  done: boolean;
  /** The status message as it ended. */
  status: FakeMessage | undefined;
}

/** Names `--auto` types for the speakers, in the modal's order. */
const AUTO_NAMES = ["Lan Pham", "Minh Tran", "Hoa Le", "Quang Do"];

/**
 * One recording from upload to note: Alice shares it in the channel, the status message is
 * printed as it changes, she clicks a button of the naming step (asked, or Name speakers
 * with `--auto`), names the speakers in the modal the bot opened, and the journey waits for
 * the notes. Resolves when the status message says the job is over, however it ended.
 */
export async function walkRecording(
  ctx: JourneyContext,
  recording: TrialRecording,
  text: string,
): Promise<JourneyEnd> {
  const threadTs = await shareRecording(ctx, recording, text);
  const statusOf = () =>
    ctx.standIn.fake
      .thread(WORKSPACE.channel.id, threadTs)
      .find((m) => m.metadata?.event_payload.kind === "status");
  const over = (m: FakeMessage | undefined) => m !== undefined && !has(m, ACTIONS.cancel);
  const naming = await waitFor(
    ctx,
    statusOf,
    (m) => over(m) || has(m, ACTIONS.nameSpeakers),
    "the status message to ask for names",
  );
  if (naming !== undefined && has(naming, ACTIONS.nameSpeakers)) await nameStep(ctx, naming);
  const end = await waitFor(ctx, statusOf, over, "the note");
  await ctx.standIn.fake.deliveriesSettled();
  ctx.watch.look();
  return { threadTs, done: has(end, ACTIONS.regenerate), status: end };
}

/**
 * Alice shares the file with a message in #weekly-sync and Slack sends the `file_share`
 * event; resolves with the message's ts (the thread the bot answers in).
 */
export async function shareRecording(
  ctx: Pick<JourneyContext, "standIn" | "say">,
  recording: TrialRecording,
  text: string,
): Promise<string> {
  const { fake } = ctx.standIn;
  const alice = WORKSPACE.alice.id;
  const channel = WORKSPACE.channel.id;
  const file = fake.addFile({ name: recording.name, path: recording.path, user: alice });
  const message = fake.shareFile(file, { channel, user: alice, text });
  ctx.say("");
  ctx.say(`Alice shares ${recording.name} in #${WORKSPACE.channel.name}: "${text}"`);
  ctx.say(`  (${recording.about}; ${recording.path})`);
  const event = fileShareMessageEvent(file, { channel, user: alice, text, ts: message.ts });
  const sent = await ctx.standIn.deliver().event(event);
  if (!sent.acked) throw new Error(`the bot did not acknowledge the upload of ${recording.name}`);
  return message.ts;
}

/** The naming step: which button Alice clicks, and the modal when she names the speakers. */
async function nameStep(ctx: JourneyContext, status: FakeMessage): Promise<void> {
  const buttons = buttonsOf(status);
  const menu = buttons.map((b, i) => `${i + 1}) ${b.label}`).join("  ");
  const named = buttons.findIndex((b) => b.actionId === ACTIONS.nameSpeakers);
  const answer = await ctx.asker.ask(
    `Alice clicks which button? ${menu}  [Enter: ${named + 1}] `,
    String(named + 1),
  );
  const chosen = buttons[Number(answer || named + 1) - 1] ?? buttons[named];
  if (chosen === undefined) return;
  const views = ctx.standIn.fake.views.length;
  await clickButton(ctx.standIn, status, chosen.actionId);
  if (chosen.actionId !== ACTIONS.nameSpeakers) return;
  const modal = await waitFor(
    ctx,
    () => filledModal(ctx, views),
    (m) => m !== undefined,
    "the naming modal",
  );
  if (modal === undefined) return;
  await fillSpeakerModal(
    {
      deliver: ctx.standIn.deliver(),
      asker: ctx.asker,
      say: ctx.say,
      user: WORKSPACE.alice.id,
      people: [WORKSPACE.alice, WORKSPACE.bob],
      autoNames: AUTO_NAMES,
    },
    modal,
  );
}

/**
 * The speaker modal once filled: it opens at once with a loading view and the bot fills it
 * with `views.update` after its look-ups, so the newest record with inputs is what Alice sees.
 */
function filledModal(ctx: JourneyContext, from: number): OpenModal | undefined {
  const record = ctx.standIn.fake.views
    .slice(from)
    .findLast(
      (r) =>
        r.view.callback_id === VIEWS.speakerNames &&
        Array.isArray(r.view.blocks) &&
        r.view.blocks.some((b) => (b as { type?: unknown }).type === "input"),
    );
  return record === undefined ? undefined : { viewId: record.view_id, view: record.view };
}

function has(message: FakeMessage | undefined, actionId: string): boolean {
  return message !== undefined && buttonsOf(message).some((b) => b.actionId === actionId);
}
