import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { autoAsker, terminalAsker } from "./asker.ts";
import { type Running, runTrial } from "./trial.ts";

const USAGE = `npm run trial [-- --auto] [--http] [--dir DIR]

Runs the real bot (node src/main.ts) against a local Slack stand-in and the Note Service
emulator, shares a recording made on the spot and walks it to its note with you: the status
message as it changes, the naming modal as text, your names, then the note, its DOCX and
transcript (saved in DIR, a new temp folder by default) and its canvas. No Slack workspace,
no API key.

  --auto   answers every question itself (names the speakers); exits 0 only when the note
           and the DOCX arrived, else 1 with one sentence on stderr
  --http   HTTP mode: the stand-in sends the bot signed requests at /slack/events
           (default: Socket Mode)
  --dir    where the recordings, the bot's files and its log (bot.log) go`;

/** `npm run trial`: see USAGE. */
async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      auto: { type: "boolean", default: false },
      http: { type: "boolean", default: false },
      dir: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const dir =
    values.dir === undefined
      ? await mkdtemp(join(tmpdir(), "meeting-notes-trial-"))
      : resolve(values.dir);
  const asker = values.auto ? autoAsker(say) : terminalAsker();
  const running: Running = {};
  const stop = async () => {
    await running.bot?.stop();
    await running.standIn?.close();
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      asker.close();
      void stop().finally(() => process.exit(130));
    });
  }
  const mode = values.http ? "http" : "socket";
  say(
    `meeting-notes trial (${mode === "socket" ? "Socket Mode" : "HTTP mode"}): the real bot, a local Slack stand-in and the Note Service emulator.`,
  );
  try {
    await runTrial({ mode, dir, asker, say, env: process.env }, running);
    return 0;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    process.stderr.write(
      `Trial failed: ${reason.replace(/\.$/, "")} (the bot's log: ${join(dir, "bot.log")}).\n`,
    );
    return 1;
  } finally {
    asker.close();
    await stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `Trial failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  },
);
