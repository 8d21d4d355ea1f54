import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * Runs FFmpeg quietly on one thread (the tests and the trial make recordings with it while
 * the bot and timing-sensitive tests share the machine); rejects on failure. The output's
 * encoder threads: an output option goes just before the output file (the last argument).
 */
export async function ffmpeg(...args: string[]): Promise<void> {
  const output = args.slice(-1);
  await run("ffmpeg", [
    "-v",
    "error",
    "-nostdin",
    "-y",
    ...args.slice(0, -1),
    "-threads",
    "1",
    ...output,
  ]);
}
