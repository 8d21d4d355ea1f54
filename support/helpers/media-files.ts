import { execFile, spawnSync } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { ffmpeg } from "./run-ffmpeg.ts";

/** FFmpeg, run quietly on one thread (`run-ffmpeg.ts`), for the tests that import it here. */
export { ffmpeg };

const run = promisify(execFile);

/**
 * Whether FFmpeg and ffprobe are on PATH. The tests that make recordings with them run
 * only then, as the Redis tests run only with REDIS_URL; CI installs FFmpeg and sets
 * REQUIRE_FFMPEG=1, so there a missing FFmpeg fails the run instead of skipping them.
 */
export const FFMPEG_AVAILABLE = ["ffmpeg", "ffprobe"].every(
  (tool) => spawnSync(tool, ["-hide_banner", "-version"], { stdio: "ignore" }).status === 0,
);
if (!FFMPEG_AVAILABLE && process.env.REQUIRE_FFMPEG === "1") {
  throw new Error("FFmpeg and ffprobe must be on PATH (REQUIRE_FFMPEG=1): apt-get install ffmpeg");
}

/**
 * A small movie with sound: `seconds` of a 160 × 120 test picture in H.264 and a `hz` tone
 * in `audio` (FFmpeg's encoder name), in the container `path`'s extension names.
 */
export function movie(
  path: string,
  o: { seconds: number; hz: number; audio: "aac" | "libopus" },
): Promise<void> {
  return ffmpeg(
    "-f",
    "lavfi",
    "-i",
    "testsrc2=s=160x120:r=10",
    "-f",
    "lavfi",
    "-i",
    `sine=f=${o.hz}`,
    "-t",
    String(o.seconds),
    "-c:v",
    "libx264",
    "-preset",
    "ultrafast",
    "-c:a",
    o.audio,
    path,
  );
}

/** What ffprobe says of a file: its duration in seconds and its streams' kinds. */
export async function probe(path: string): Promise<{ duration: number; streams: string[] }> {
  const { stdout } = await run("ffprobe", [
    "-v",
    "error",
    "-show_format",
    "-show_streams",
    "-of",
    "json",
    path,
  ]);
  const json = JSON.parse(stdout) as {
    format: { duration?: string; format_name?: string };
    streams: { codec_type: string }[];
  };
  return {
    duration: Number(json.format.duration),
    streams: json.streams.map((s) => s.codec_type),
  };
}

/**
 * Processes whose command line mentions `text` (a test's temp folder): an FFmpeg a test
 * started through the bot. Read from /proc: no `ps` needed.
 */
export async function processesMentioning(text: string): Promise<string[]> {
  const found: string[] = [];
  for (const pid of await readdir("/proc")) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    const cmdline = await readFile(join("/proc", pid, "cmdline"), "utf8").catch(() => "");
    if (cmdline.includes(text)) found.push(`${pid}: ${cmdline.replaceAll("\0", " ")}`);
  }
  return found;
}
