import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { childEnv } from "./child-env.ts";

const MAIN = fileURLToPath(new URL("../../src/main.ts", import.meta.url));

/** The real app (`node src/main.ts`) in its own process, as production runs it. */
export interface AppProcess {
  port: number;
  url: string;
  child: ChildProcess;
  /** Every line the process wrote to stdout and stderr. */
  lines: string[];
  /** Sends `signal` and resolves with the exit code (null when killed by a signal). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts the app with `env` (plus PATH) and waits for its "started" log line. */
export async function spawnApp(
  env: Record<string, string>,
  main: string = MAIN,
  /** Node's own arguments before the script, e.g. `--import` of a preload module. */
  nodeArgs: readonly string[] = [],
): Promise<AppProcess> {
  const child = spawn(process.execPath, [...nodeArgs, main], {
    env: { ...childEnv(), PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  createInterface({ input: child.stderr }).on("line", (line) => lines.push(line));
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => resolve(code)),
  );
  const port = await new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout }).on("line", (line) => {
      lines.push(line);
      const match = /"msg":"meeting-notes started"/.test(line) ? /"port":(\d+)/.exec(line) : null;
      if (match?.[1]) resolve(Number(match[1]));
    });
    exited.then((code) =>
      reject(new Error(`app exited with ${code}:\n${lines.slice(-20).join("\n")}`)),
    );
  });
  return {
    port,
    url: `http://127.0.0.1:${port}/slack/events`,
    child,
    lines,
    async stop(signal = "SIGTERM") {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
  };
}
