import { dirname, join } from "node:path";
import { ADDRESS_SPACE_BYTES } from "./read-upload.ts";
import { runTool } from "./run-tool.ts";

export interface MediaTools {
  ffmpeg: string;
  ffprobe: string;
  version: string;
  /** Each run's memory limit through `prlimit`; undefined where there is none. */
  addressSpace: { prlimit: string; bytes: number } | undefined;
}

const CHECK_TIMEOUT_MS = 10_000;

/** What was found, by the paths asked for: each program is run once per process. */
const found = new Map<string, Promise<MediaTools | undefined>>();

/**
 * Finds FFmpeg and ffprobe (FFMPEG_PATH, FFPROBE_PATH, beside ffmpeg, or on PATH); undefined
 * when either does not run. Kept for the process: each check starts a process.
 */
export function findMediaTools(o: {
  ffmpegPath?: string | undefined;
  ffprobePath?: string | undefined;
}): Promise<MediaTools | undefined> {
  const key = `${o.ffmpegPath ?? ""}\n${o.ffprobePath ?? ""}`;
  let tools = found.get(key);
  if (tools === undefined) {
    tools = lookFor(o);
    found.set(key, tools);
  }
  return tools;
}

async function lookFor(o: {
  ffmpegPath?: string | undefined;
  ffprobePath?: string | undefined;
}): Promise<MediaTools | undefined> {
  const ffmpeg = o.ffmpegPath ?? "ffmpeg";
  const candidates =
    o.ffprobePath !== undefined
      ? [o.ffprobePath]
      : ffmpeg.includes("/")
        ? [join(dirname(ffmpeg), "ffprobe"), "ffprobe"]
        : ["ffprobe"];
  // At once: each check is a process start, and the app's start waits for them.
  const [version, firstProbe, addressSpace] = await Promise.all([
    versionOf(ffmpeg),
    versionOf(candidates[0] ?? "ffprobe"),
    addressSpaceLimit(),
  ]);
  if (version === undefined) return undefined;
  for (const [k, ffprobe] of candidates.entries()) {
    const found = k === 0 ? firstProbe : await versionOf(ffprobe);
    if (found !== undefined) return { ffmpeg, ffprobe, version, addressSpace };
  }
  return undefined;
}

/** `prlimit` when it runs and can limit a process's address space here; else undefined. */
async function addressSpaceLimit(): Promise<MediaTools["addressSpace"]> {
  const limit = { prlimit: "prlimit", bytes: ADDRESS_SPACE_BYTES };
  try {
    await runTool("true", [], { timeoutMs: CHECK_TIMEOUT_MS, addressSpace: limit });
    return limit;
  } catch {
    return undefined;
  }
}

async function versionOf(command: string): Promise<string | undefined> {
  try {
    const { stdout } = await runTool(command, ["-hide_banner", "-version"], {
      timeoutMs: CHECK_TIMEOUT_MS,
    });
    return stdout.split("\n")[0]?.trim() || command;
  } catch {
    return undefined;
  }
}
