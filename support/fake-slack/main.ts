import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { terminalAsker } from "../trial/asker.ts";
import { hasFfmpeg, makeRecordings } from "../trial/recordings.ts";
import { SlackWatch } from "../trial/slack-watch.ts";
import { startStandIn, WORKSPACE, workspaceNames } from "../trial/stand-in.ts";
import { CONSOLE_HELP, runConsole } from "../trial/stand-in-console.ts";

/**
 * `npm run fake-slack`: the Slack stand-in of `npm run trial` (the fake Slack's Web API and
 * Socket Mode server) and the Note Service emulator, without a bot: it prints the
 * environment to start your own bot with (`npm start`, `npm run dev`, a debugger), then
 * takes the stand-in's commands on stdin and prints everything the bot sends.
 */
async function main(): Promise<void> {
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const dir = await mkdtemp(join(tmpdir(), "meeting-notes-fake-slack-"));
  // The recording is made while the bot starts: it is needed only by `upload`. Its folder
  // goes when the fake stops.
  const recordings = makeRecordings(dir, { ffmpeg: hasFfmpeg(), video: false });
  // Its failure is reported where it is awaited, not as an unhandled rejection before that.
  recordings.catch(() => {});
  const standIn = await startStandIn("socket", process.env);
  const line = Object.entries(standIn.botEnv)
    .map(([key, value]) => `${key}=${value}`)
    .join(" ");
  say(`Start the bot in another terminal with:\n\n  ${line} npm start\n`);
  say(CONSOLE_HELP);
  const watch = new SlackWatch(standIn.fake, {
    channel: WORKSPACE.channel.id,
    say,
    names: workspaceNames(standIn.fake),
  });
  const asker = terminalAsker();
  const stop = async () => {
    asker.close();
    await standIn.close();
    await rm(dir, { recursive: true, force: true });
    process.exit(0);
  };
  process.once("SIGINT", () => void stop());
  process.once("SIGTERM", () => void stop());
  await runConsole({ standIn, watch, asker, say, recording: (await recordings)[0] });
  await stop();
}

main().catch((error: unknown) => {
  process.stderr.write(`The fake Slack could not start: ${String(error)}\n`);
  process.exit(1);
});
