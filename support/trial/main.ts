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

/** The command line, or undefined after printing the usage. */
function options() {
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
    return undefined;
  }
  return {
    auto: values.auto,
    mode: values.http ? ("http" as const) : ("socket" as const),
    dir: values.dir,
  };
}

/** `npm run trial`: see USAGE. Resolves with the exit code. */
async function main(): Promise<number> {
  const given = options();
  if (given === undefined) return 0;
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const dir =
    given.dir === undefined
      ? await mkdtemp(join(tmpdir(), "meeting-notes-trial-"))
      : resolve(given.dir);
  const asker = given.auto ? autoAsker(say) : terminalAsker();
  const running: Running = {};
  // Once, whether Ctrl-C or the end of the trial comes first.
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      asker.close();
      await running.bot?.stop();
      await running.standIn?.close();
    })();
    return stopping;
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => void stop().finally(() => process.exit(130)));
  }
  const label = given.mode === "socket" ? "Socket Mode" : "HTTP mode";
  say(
    `meeting-notes trial (${label}): the real bot, a local Slack stand-in and the Note Service emulator.`,
  );
  try {
    await runTrial({ mode: given.mode, dir, asker, say, env: process.env }, running);
    return 0;
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).replace(/\.$/, "");
    process.stderr.write(`Trial failed: ${reason} (the bot's log: ${join(dir, "bot.log")}).\n`);
    return 1;
  } finally {
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
