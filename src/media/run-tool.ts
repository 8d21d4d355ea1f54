import { spawn } from "node:child_process";

/** How an FFmpeg tool run ended when it did not succeed. */
export class ToolError extends Error {
  readonly code = "media_tool_failed";
  /** Why: it exited non-zero, ran out of time, was stopped, or could not start. */
  readonly reason: "exit" | "timeout" | "aborted" | "spawn";

  constructor(message: string, reason: ToolError["reason"], options?: { cause?: unknown }) {
    super(message, options);
    this.name = this.constructor.name;
    this.reason = reason;
  }
}

export interface RunToolOptions {
  /** Killed (SIGKILL) when this runs out. */
  timeoutMs: number;
  /** Aborting kills the process at once (SIGKILL) and rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
  /** Each line the tool writes to stdout, as it comes. */
  onLine?: ((line: string) => void) | undefined;
  onStart?: ((pid: number) => void) | undefined;
}

/**
 * Options before FFmpeg's or ffprobe's input: the recording is a person's upload, so it may
 * read nothing but its own file. A playlist or reference file (HLS, concat, a movie with
 * external references) could otherwise make FFmpeg fetch URLs from inside our network or
 * read other local files into the audio. Only the `file` protocol is allowed; the downloads
 * are named by the bot, so the path itself is never a URL.
 */
export const INPUT_GUARD = ["-protocol_whitelist", "file"] as const;

/** The last part of a tool's stderr kept for the log: its error is at the end. */
const STDERR_TAIL_CHARS = 2000;

/**
 * Runs an FFmpeg tool (no shell: the arguments go as they are) and resolves with its
 * stdout once it exits 0. Resolves only after the process is gone: a caller that cleans
 * up after it never races a process still writing.
 */
export function runTool(command: string, args: readonly string[], o: RunToolOptions) {
  return new Promise<string>((resolve, reject) => {
    if (o.signal?.aborted) {
      reject(o.signal.reason);
      return;
    }
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
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
      else if (code === 0) resolve(stdout);
      else {
        const tail = stderr.trim().split("\n").slice(-3).join(" | ");
        reject(new ToolError(`${command} exited with ${code ?? signal}: ${tail}`, "exit"));
      }
    });
  });
}
