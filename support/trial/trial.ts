import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { Asker } from "./asker.ts";
import { mrkdwnText } from "./block-text.ts";
import { type BotProcess, startBot } from "./bot-process.ts";
import { type JourneyContext, walkRecording } from "./journey.ts";
import { hasFfmpeg, makeRecordings, type TrialRecording } from "./recordings.ts";
import { saveResults } from "./save-results.ts";
import { type Say, SlackWatch } from "./slack-watch.ts";
import {
  type SlackMode,
  type StandIn,
  startStandIn,
  WORKSPACE,
  workspaceNames,
} from "./stand-in.ts";
import { runConsole } from "./stand-in-console.ts";

export interface TrialOptions {
  mode: SlackMode;
  /** Where the recordings, the bot's files and its log go (created if missing). */
  dir: string;
  asker: Asker;
  say: Say;
  /** The trial's environment (the emulator's pace: EMULATOR_AUDIO_DURATION_MS…). */
  env: Record<string, string | undefined>;
}

/** What the trial holds running, to stop on the way out (Ctrl-C too). */
export interface Running {
  bot?: BotProcess;
  standIn?: StandIn;
}

const STEP_TIMEOUT_MS = 60_000;
const MESSAGES = ["Weekly sync: budget and hiring", "Stand-up, recorded on a phone"];

/**
 * The whole trial: the stand-in and the emulator, the recordings, the real bot; then each
 * recording from upload to note (the status as it changes, the naming modal as text, the
 * names asked or typed by `--auto`), the note's first lines and its files saved in `dir`.
 * Resolves once every recording's note and DOCX arrived (then, asked, the stand-in's
 * command prompt ran); rejects with one sentence for the person otherwise.
 */
export async function runTrial(o: TrialOptions, running: Running): Promise<void> {
  const started = Date.now();
  const { say, asker } = o;
  const { standIn, recordings } = await startAll(o, running, started);
  const names = workspaceNames(standIn.fake);
  const watch = new SlackWatch(standIn.fake, { channel: WORKSPACE.channel.id, say, names });
  const ctx: JourneyContext = { standIn, watch, asker, say, stepTimeoutMs: STEP_TIMEOUT_MS };
  const delivered: string[] = [];
  for (const [index, recording] of recordings.entries()) {
    if (index > 0) {
      const question = `\nShare ${recording.name} too (${recording.about})? [Y/n] `;
      if (/^n/i.test(await asker.ask(question, "y"))) break;
    }
    if (await deliverOne(ctx, recording, MESSAGES[index] ?? "", o.dir)) {
      delivered.push(recording.name);
    }
  }
  const took = `${modeLabel(o.mode)}, ${seconds(started)}`;
  const arrived =
    delivered.length === 0
      ? "No note arrived"
      : `The note and the DOCX of ${delivered.join(" and ")} arrived`;
  say(`\n${arrived} (${took}).`);
  if (asker.auto) return;
  say("The bot keeps running: try the stand-in's commands (help lists them, quit ends the trial).");
  await runConsole({ standIn, watch, asker, say, recording: recordings[0] });
}

/** The stand-in, the emulator and the recordings at once, then the bot once they listen. */
async function startAll(o: TrialOptions, running: Running, started: number) {
  const { say } = o;
  await mkdir(join(o.dir, "recordings"), { recursive: true });
  const ffmpeg = hasFfmpeg();
  say(`Files: ${o.dir} (the recordings, what the bot delivers, and its log, bot.log)`);
  say(
    ffmpeg
      ? "Making the recordings with FFmpeg: speech-like sound in an M4A file, and a short movie…"
      : "Making the recording: speech-like sound in a WAV file (FFmpeg is not installed, so no movie)…",
  );
  const [standIn, recordings] = await Promise.all([
    startStandIn(o.mode, o.env),
    makeRecordings(join(o.dir, "recordings"), { ffmpeg }),
  ]);
  running.standIn = standIn;
  say(`The Note Service emulator listens at ${standIn.emulator.baseUrl}`);
  say(`The Slack stand-in listens at ${standIn.fake.apiUrl} (${modeLine(standIn)})`);
  say("Starting the bot: node src/main.ts…");
  const logLevel = o.env.LOG_LEVEL === undefined ? {} : { LOG_LEVEL: o.env.LOG_LEVEL };
  const bot = await startBot(o.dir, { ...standIn.botEnv, ...logLevel });
  running.bot = bot;
  standIn.botListensAt(`${bot.origin}/slack/events`);
  say(`The bot is ready (${bot.origin}/readyz answers 200) after ${seconds(started)}.`);
  return { standIn, recordings };
}

/**
 * One recording's journey and its results. A missing note or DOCX fails `--auto`; asked,
 * it is said (the person may have clicked Cancel) and the trial goes on. Resolves whether
 * the note and the DOCX arrived.
 */
async function deliverOne(
  ctx: JourneyContext,
  recording: TrialRecording,
  text: string,
  dir: string,
): Promise<boolean> {
  const end = await walkRecording(ctx, recording, text).catch((error: unknown) => {
    throw new Error(`${recording.name}: ${error instanceof Error ? error.message : String(error)}`);
  });
  const missing = (what: string) => {
    if (ctx.asker.auto) throw new Error(what);
    ctx.say(`${what}.`);
    return false;
  };
  if (!end.done) {
    const said = mrkdwnText(end.status?.text ?? "", ctx.watch.nameOf).replace(/\.$/, "");
    return missing(`${recording.name} got no note: its status message says "${said}"`);
  }
  const saved = await saveResults(ctx.standIn, {
    recording: recording.name,
    threadTs: end.threadTs,
    dir,
    say: ctx.say,
  });
  if (saved.noteLines.length === 0) {
    return missing(`the note of ${recording.name} never reached the thread`);
  }
  if (saved.docx === undefined) {
    return missing(`the DOCX of ${recording.name} never reached the thread`);
  }
  return true;
}

function modeLine(standIn: StandIn): string {
  return standIn.mode === "socket"
    ? "Socket Mode: the bot opens a socket to it and gets every event there"
    : "HTTP mode: it sends the bot signed requests at /slack/events";
}

function modeLabel(mode: SlackMode): string {
  return mode === "socket" ? "Socket Mode" : "HTTP mode";
}

function seconds(since: number): string {
  return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}
