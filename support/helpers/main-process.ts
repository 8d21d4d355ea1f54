import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { childEnv } from "./child-env.ts";

const MAIN = fileURLToPath(new URL("../../src/main.ts", import.meta.url));

/** `node src/main.ts` as a person starts it, whether it starts, waits or stops. */
export interface MainProcess {
  /** stdout's lines (the JSON log), as they come. */
  readonly stdout: string[];
  /** stderr's lines. */
  readonly stderr: string[];
  /** Resolves with the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
  /** The first stdout line matching `pattern`, now or later; rejects if the process exits first. */
  line(pattern: RegExp): Promise<string>;
  /** The HTTP port, from the line saying the bot serves /healthz while it connects to Slack. */
  port(): Promise<number>;
  /** Sends `signal` (unless exited) and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts the app with `env` (plus PATH and PORT=0) and collects what it writes. */
export function startMain(env: Record<string, string>): MainProcess {
  const child = spawn(process.execPath, [MAIN], {
    env: { ...childEnv(), PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  const waiters = new Set<() => void>();
  let ended = false;
  const exited = new Promise<number | null>((resolve) => {
    child.once("close", (code) => {
      ended = true;
      resolve(code);
      for (const wake of waiters) wake();
    });
  });
  createInterface({ input: child.stdout }).on("line", (text) => {
    stdout.push(text);
    for (const wake of waiters) wake();
  });
  createInterface({ input: child.stderr }).on("line", (text) => stderr.push(text));
  const line = (pattern: RegExp) =>
    new Promise<string>((resolve, reject) => {
      const look = () => {
        const found = stdout.find((text) => pattern.test(text));
        if (found !== undefined) {
          waiters.delete(look);
          resolve(found);
        } else if (ended) {
          waiters.delete(look);
          reject(new Error(`exited before ${pattern}:\n${[...stdout, ...stderr].join("\n")}`));
        }
      };
      waiters.add(look);
      look();
    });
  return {
    stdout,
    stderr,
    exited,
    line,
    async port() {
      const text = await line(/"msg":"serving \/healthz and \/readyz; connecting to Slack"/);
      return Number(/"port":(\d+)/.exec(text)?.[1]);
    },
    async stop(signal = "SIGTERM") {
      if (!ended) child.kill(signal);
      return exited;
    },
  };
}
