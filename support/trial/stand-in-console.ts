import { stat } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { ACTIONS, VIEWS } from "../../src/slack/ids.ts";
import type { FakeMessage } from "../fake-slack/fake-slack-types.ts";
import type { DisconnectReason } from "../fake-slack/socket-mode-types.ts";
import type { Asker } from "./asker.ts";
import { blocksText } from "./block-text.ts";
import { buttonsOf, clickButton } from "./click-button.ts";
import { fillSpeakerModal } from "./fill-modal.ts";
import { shareRecording } from "./journey.ts";
import type { TrialRecording } from "./recordings.ts";
import type { Say, SlackWatch } from "./slack-watch.ts";
import { type StandIn, WORKSPACE } from "./stand-in.ts";

export const CONSOLE_HELP = `The stand-in's commands (Alice does each in #${WORKSPACE.channel.name}):
  upload [FILE]        shares FILE (a path on this machine), or the trial's recording
  click BUTTON         clicks a button of the newest message that has it, by its label or
                       name: ${Object.keys(ACTIONS).join(", ")}
  command [TEXT]       types /meeting-notes TEXT (try: help, status, settings)
  disconnect [REASON]  Socket Mode: the stand-in drops the socket (warning, refresh_requested,
                       link_disabled); the bot reconnects
  help, quit
Everything the bot sends is printed: its messages, every modal (as text) and every
ephemeral answer.`;

export interface ConsoleContext {
  standIn: StandIn;
  watch: SlackWatch;
  asker: Asker;
  say: Say;
  /** What `upload` shares without a FILE. */
  recording: TrialRecording | undefined;
}

/** Takes the stand-in's commands from the terminal until `quit` or the end of stdin. */
export async function runConsole(ctx: ConsoleContext): Promise<void> {
  const looking = setInterval(() => ctx.watch.look(), 200);
  try {
    for (;;) {
      const line = await ctx.asker.next("stand-in> ");
      if (line === undefined || line === "quit" || line === "exit") return;
      const [word = "", ...rest] = line.split(/\s+/);
      await runCommand(ctx, word, rest.join(" ")).catch((error: unknown) => {
        ctx.say(error instanceof Error ? error.message : String(error));
      });
      ctx.watch.look();
    }
  } finally {
    clearInterval(looking);
  }
}

async function runCommand(ctx: ConsoleContext, word: string, arg: string): Promise<void> {
  if (word === "upload") return upload(ctx, arg);
  if (word === "click") return click(ctx, arg);
  if (word === "command") return command(ctx, arg);
  if (word === "disconnect") {
    const socket = ctx.standIn.fake.socket;
    if (socket === undefined) return ctx.say("The bot is in HTTP mode: there is no socket.");
    socket.disconnect((arg || "refresh_requested") as DisconnectReason);
    return ctx.say(`The stand-in sent disconnect (${arg || "refresh_requested"}).`);
  }
  if (word !== "") ctx.say(CONSOLE_HELP);
}

async function upload(ctx: ConsoleContext, arg: string): Promise<void> {
  if (arg === "") {
    if (ctx.recording === undefined) return ctx.say("Say which file: upload FILE");
    await shareRecording(ctx, ctx.recording, "Shared again from the stand-in");
    return;
  }
  // npm runs the script in the repository: a relative path is the person's, from where they typed.
  const home = arg.startsWith("~/") ? join(process.env.HOME ?? "", arg.slice(2)) : arg;
  const path = resolve(process.env.INIT_CWD ?? process.cwd(), home);
  const found = await stat(path).catch(() => undefined);
  if (found === undefined || !found.isFile()) return ctx.say(`No file at ${path}`);
  const file = { name: basename(path), path, about: `${found.size} bytes`, video: false };
  await shareRecording(ctx, file, "");
}

async function click(ctx: ConsoleContext, wanted: string): Promise<void> {
  const name = wanted.toLowerCase();
  const actionId = ACTIONS[wanted as keyof typeof ACTIONS] ?? "";
  const messages = ctx.standIn.fake.messages(WORKSPACE.channel.id);
  let target: { message: FakeMessage; actionId: string } | undefined;
  for (const message of messages.toReversed()) {
    const button = buttonsOf(message).find(
      (b) => b.actionId === actionId || b.actionId === wanted || b.label.toLowerCase() === name,
    );
    if (button !== undefined) {
      target = { message, actionId: button.actionId };
      break;
    }
  }
  if (target === undefined) return ctx.say(`No message has a ${wanted || "such"} button.`);
  const views = ctx.standIn.fake.views.length;
  await clickButton(ctx.standIn, target.message, target.actionId);
  ctx.say(`Alice clicked ${wanted}.`);
  if (target.actionId !== ACTIONS.nameSpeakers && target.actionId !== ACTIONS.regenerate) return;
  const modal = await speakerModalAfter(ctx, views);
  if (modal === undefined) return;
  await fillSpeakerModal(
    {
      deliver: ctx.standIn.deliver(),
      asker: ctx.asker,
      say: ctx.say,
      user: WORKSPACE.alice.id,
      people: [WORKSPACE.alice, WORKSPACE.bob],
      autoNames: [],
    },
    modal,
  );
}

/** The speaker or Regenerate modal the bot filled after a click, within 10 s. */
async function speakerModalAfter(ctx: ConsoleContext, from: number) {
  const ids: string[] = [VIEWS.speakerNames, VIEWS.regenerate];
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
    ctx.watch.look();
    const record = ctx.standIn.fake.views
      .slice(from)
      .findLast(
        (r) =>
          ids.includes(String(r.view.callback_id)) &&
          Array.isArray(r.view.blocks) &&
          r.view.blocks.some((b) => (b as { type?: unknown }).type === "input"),
      );
    if (record !== undefined) return { viewId: record.view_id, view: record.view };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return undefined;
}

async function command(ctx: ConsoleContext, text: string): Promise<void> {
  const answer = await ctx.standIn.deliver().command({
    user_id: WORKSPACE.alice.id,
    channel_id: WORKSPACE.channel.id,
    channel_name: WORKSPACE.channel.name,
    team_id: ctx.standIn.fake.teamId,
    text,
    response_url: ctx.standIn.fake.responseUrl(),
  });
  if (!answer.acked) return ctx.say("The bot did not answer the command within 3 s.");
  if (answer.payload === undefined) return ctx.say(`/meeting-notes ${text}: acknowledged`);
  const reply = answer.payload as { text?: unknown; blocks?: unknown };
  const lines = Array.isArray(reply.blocks)
    ? blocksText(reply.blocks, ctx.watch.nameOf)
    : String(reply.text ?? JSON.stringify(reply)).split("\n");
  ctx.say(`[the bot's answer to /meeting-notes ${text}, only Alice sees it]`);
  for (const line of lines) ctx.say(`  ${line}`);
}
