import { execFile, spawnSync } from "node:child_process";
import { createHash, randomUUID } from "node:crypto";
import { copyFile, mkdir, readFile, rename, stat } from "node:fs/promises";
import { extname, join, resolve } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * Where recordings the tests made are kept between runs (`TEST_MEDIA_CACHE=off` makes every
 * one afresh). The tests' recordings are the same bytes from run to run — a tone, a clip, a
 * loop of them — and making them was a tenth of the suite's CPU time; the bot's own FFmpeg
 * runs are not cached, only what the tests feed it.
 */
const CACHE_DIR = resolve(import.meta.dirname, "../../node_modules/.cache/test-media");
const CACHE_ON = process.env.TEST_MEDIA_CACHE !== "off";
const CACHE_MAX_BYTES = 64 * 1024 * 1024;

let version: string | undefined;
/** The FFmpeg build is part of every key: another build may make other bytes. */
function ffmpegVersion(): string {
  version ??= spawnSync("ffmpeg", ["-version"], { encoding: "utf8" }).stdout?.split("\n")[0] ?? "";
  return version;
}

/**
 * The key of one FFmpeg run: its version, its options, and the content (not the path) of
 * every input file it names; the output is named by its extension only, since the tests
 * make the same recording under a new temp folder each run.
 */
async function cacheKey(args: readonly string[], output: string): Promise<string> {
  const hash = createHash("sha256").update(ffmpegVersion()).update("\0");
  for (const arg of args) {
    // Any argument naming a file (relative ones from where FFmpeg runs) is its content.
    const file = arg === "" ? undefined : await stat(resolve(arg)).catch(() => undefined);
    if (file?.isFile()) hash.update("file:").update(await readFile(resolve(arg)));
    else hash.update(arg);
    hash.update("\0");
  }
  return `${hash.update(extname(output)).digest("hex").slice(0, 32)}${extname(output)}`;
}

/**
 * Runs FFmpeg quietly on one thread (the tests and the trial make recordings with it while
 * the bot and timing-sensitive tests share the machine); rejects on failure. The output's
 * encoder threads: an output option goes just before the output file (the last argument).
 * A run made before with the same inputs and options is copied from the cache instead.
 */
export async function ffmpeg(...args: string[]): Promise<void> {
  const output = args.at(-1) ?? "";
  const options = args.slice(0, -1);
  const cached = CACHE_ON ? join(CACHE_DIR, await cacheKey(options, output)) : undefined;
  if (cached !== undefined && (await stat(cached).catch(() => undefined))?.isFile()) {
    await copyFile(cached, output);
    return;
  }
  await run("ffmpeg", ["-v", "error", "-nostdin", "-y", ...options, "-threads", "1", output]);
  // A big remux (the 350 MB MP4) is as quick to make as to copy: not kept.
  if (cached === undefined || (await stat(output)).size > CACHE_MAX_BYTES) return;
  // Written aside and renamed: a worker reading the cache never sees half a file.
  await mkdir(CACHE_DIR, { recursive: true });
  const aside = `${cached}.${randomUUID()}.part`;
  await copyFile(output, aside);
  await rename(aside, cached);
}
