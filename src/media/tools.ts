import { spawn } from "node:child_process";
import { dirname, join } from "node:path";

/** The FFmpeg programs the bot prepares recordings with: found once, each run within limits. */
export interface MediaTools {
  ffmpeg: string;
  ffprobe: string;
  version: string;
  /** Each run's memory limit through `prlimit`; undefined where there is none. */
  addressSpace: { prlimit: string; bytes: number } | undefined;
}

const CHECK_TIMEOUT_MS = 10_000;

/** The most memory an FFmpeg process may map (RLIMIT_AS): its ~290 MB start, and room to work. */
export const ADDRESS_SPACE_BYTES = 768 * 1024 * 1024;

/** What was found, by the paths asked for: each program is run once per process. */
const found = new Map<string, Promise<MediaTools | undefined>>();

type ToolPaths = {
  ffmpegPath?: string | undefined;
  ffprobePath?: string | undefined;
  /** How long each check may take to answer (tests shorten it). */
  checkTimeoutMs?: number | undefined;
};

/**
 * Finds FFmpeg and ffprobe (FFMPEG_PATH, FFPROBE_PATH, beside ffmpeg, or on PATH); undefined
 * when either does not run. Kept for the process: each check starts a process.
 */
export function findMediaTools(o: ToolPaths): Promise<MediaTools | undefined> {
  const key = `${o.ffmpegPath ?? ""}\n${o.ffprobePath ?? ""}\n${o.checkTimeoutMs ?? ""}`;
  let tools = found.get(key);
  if (tools === undefined) {
    tools = lookFor(o);
    found.set(key, tools);
  }
  return tools;
}

async function lookFor(o: ToolPaths): Promise<MediaTools | undefined> {
  const ffmpeg = o.ffmpegPath ?? "ffmpeg";
  const candidates =
    o.ffprobePath !== undefined
      ? [o.ffprobePath]
      : ffmpeg.includes("/")
        ? [join(dirname(ffmpeg), "ffprobe"), "ffprobe"]
        : ["ffprobe"];
  const timeoutMs = o.checkTimeoutMs ?? CHECK_TIMEOUT_MS;
  // At once: each check is a process start, and the app's start waits for them.
  const [version, firstProbe, addressSpace] = await Promise.all([
    versionOf(ffmpeg, timeoutMs),
    versionOf(candidates[0] ?? "ffprobe", timeoutMs),
    addressSpaceLimit(timeoutMs),
  ]);
  if (version === undefined) return undefined;
  for (const [k, ffprobe] of candidates.entries()) {
    const found = k === 0 ? firstProbe : await versionOf(ffprobe, timeoutMs);
    if (found !== undefined) return { ffmpeg, ffprobe, version, addressSpace };
  }
  return undefined;
}

/**
 * Runs a check: "ran" when it exited 0, "slow" when it did not answer in time, "absent" when it
 * could not start or failed. A slow program is not a missing one: taking it for missing would
 * refuse recordings, or drop FFmpeg's memory limit, for the rest of the process.
 */
async function check(command: string, args: string[], o: Omit<RunToolOptions, "onStart">) {
  let started = false;
  try {
    const { stdout } = await runTool(command, args, { ...o, onStart: () => (started = true) });
    return { outcome: "ran", stdout } as const;
  } catch (e) {
    const slow = started && e instanceof ToolError && e.reason === "timeout";
    return { outcome: slow ? "slow" : "absent", stdout: "" } as const;
  }
}

/** `prlimit` when it runs and can limit a process's address space here; else undefined. */
async function addressSpaceLimit(timeoutMs: number): Promise<MediaTools["addressSpace"]> {
  const limit = { prlimit: "prlimit", bytes: ADDRESS_SPACE_BYTES };
  const { outcome } = await check("true", [], { timeoutMs, addressSpace: limit });
  return outcome === "absent" ? undefined : limit;
}

async function versionOf(command: string, timeoutMs: number): Promise<string | undefined> {
  const { outcome, stdout } = await check(command, ["-hide_banner", "-version"], { timeoutMs });
  if (outcome === "absent") return undefined;
  if (outcome === "slow") return `${command} (its version check took over ${timeoutMs} ms)`;
  return stdout.split("\n")[0]?.trim() || command;
}

/** How an FFmpeg tool run ended when it did not succeed. */
export class ToolError extends Error {
  readonly code = "media_tool_failed";
  readonly reason: "exit" | "timeout" | "aborted" | "spawn";

  constructor(message: string, reason: ToolError["reason"], options?: { cause?: unknown }) {
    super(message, options);
    this.name = this.constructor.name;
    this.reason = reason;
  }
}

/** What a tool printed once it exited 0: stdout (unless read by line), the end of stderr. */
export interface ToolOutput {
  stdout: string;
  stderr: string;
}

export interface RunToolOptions {
  /** Killed (SIGKILL) when this runs out. */
  timeoutMs: number;
  /** Aborting kills the process at once (SIGKILL) and rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
  onLine?: ((line: string) => void) | undefined;
  onStart?: ((pid: number) => void) | undefined;
  /** RLIMIT_AS, set through util-linux's `prlimit` at this path. */
  addressSpace?: { prlimit: string; bytes: number } | undefined;
}

/** PATH and a fixed locale only: the bot's environment has secrets; FFmpeg reads hostile files. */
export function toolEnvironment(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin", LC_ALL: "C" };
}

/** The last part of a tool's stderr kept for the log: its error is at the end. */
const STDERR_TAIL_CHARS = 2000;

/** Runs a tool without a shell; settles only once the process is gone, so no cleanup races it. */
export function runTool(command: string, args: readonly string[], o: RunToolOptions) {
  return new Promise<ToolOutput>((resolve, reject) => {
    if (o.signal?.aborted) {
      reject(o.signal.reason);
      return;
    }
    const limit = o.addressSpace;
    // prlimit sets the limit on itself, then executes the tool in its place: same process.
    const [file, argv] =
      limit === undefined
        ? [command, args]
        : [limit.prlimit, [`--as=${limit.bytes}`, "--", command, ...args]];
    const child = spawn(file, argv, {
      stdio: ["ignore", "pipe", "pipe"],
      env: toolEnvironment(),
    });
    let stdout = "";
    let partial = "";
    let stderr = "";
    let ended: ToolError | undefined;
    let abortReason: unknown;
    const kill = () => child.kill("SIGKILL");
    const timer = setTimeout(() => {
      ended = new ToolError(`${command} ran longer than ${o.timeoutMs} ms.`, "timeout");
      kill();
    }, o.timeoutMs);
    const onAbort = () => {
      abortReason = o.signal?.reason;
      kill();
    };
    o.signal?.addEventListener("abort", onAbort, { once: true });
    child.stdout.setEncoding("utf8").on("data", (text: string) => {
      if (o.onLine === undefined) {
        stdout += text;
        return;
      }
      const lines = (partial + text).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) o.onLine(line.trimEnd());
    });
    child.stderr.setEncoding("utf8").on("data", (text: string) => {
      stderr = (stderr + text).slice(-STDERR_TAIL_CHARS);
    });
    child.once("spawn", () => {
      if (child.pid !== undefined) o.onStart?.(child.pid);
    });
    child.once("error", (cause) => {
      ended ??= new ToolError(`${command} could not be started.`, "spawn", { cause });
    });
    // `close`, not `exit`: stdout and stderr are read to the end by then.
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      o.signal?.removeEventListener("abort", onAbort);
      if (abortReason !== undefined) reject(abortReason);
      else if (ended !== undefined) reject(ended);
      else if (code === 0) resolve({ stdout, stderr });
      else {
        const tail = stderr.trim().split("\n").slice(-3).join(" | ");
        reject(new ToolError(`${command} exited with ${code ?? signal}: ${tail}`, "exit"));
      }
    });
  });
}
