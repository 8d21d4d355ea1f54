import { type ChildProcess, type ChildProcessByStdio, spawn } from "node:child_process";
import { createWriteStream, type WriteStream } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { z } from "zod";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const MAIN = join(ROOT, "src/main.ts");

/** The real bot, `node src/main.ts`, in a process of its own. */
export interface BotProcess {
  /** Its HTTP server: `/slack/events` in HTTP mode, `/healthz` and `/readyz` always. */
  readonly origin: string;
  /** Where its log lines go (JSON, one a line). */
  readonly logPath: string;
  /** Resolves with the exit code once the bot stops (SIGTERM: it finishes what it holds). */
  stop(): Promise<number | null>;
}

const startedLine = z.object({ msg: z.literal("meeting-notes started"), port: z.number().int() });

/**
 * Starts the bot with `env` only (plus PATH and Node's compile cache: a `.env` file or the
 * shell's own SLACK_* variables never reach it), its store and temp files in `dir`, its log in
 * `dir/bot.log`. Resolves once it listens and its readiness checks pass (in Socket Mode: the
 * socket is open); rejects with what it said when it exits before that.
 */
export async function startBot(dir: string, env: Record<string, string>): Promise<BotProcess> {
  await mkdir(join(dir, "bot"), { recursive: true });
  const logPath = join(dir, "bot.log");
  const log = createWriteStream(logPath);
  const child = spawn(process.execPath, [MAIN], {
    cwd: ROOT,
    env: environment(dir, env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const port = await listeningPort(child, log, exited);
  const origin = `http://127.0.0.1:${port}`;
  await ready(origin, child, exited);
  return {
    origin,
    logPath,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      const code = await exited;
      clearTimeout(timer);
      await new Promise((resolve) => log.end(resolve));
      return code;
    },
  };
}

function environment(dir: string, env: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    NODE_COMPILE_CACHE:
      process.env.NODE_COMPILE_CACHE ?? join(ROOT, "node_modules/.cache/node-compile-cache"),
    STORE_URL: `sqlite://${join(dir, "bot", "meeting-notes.sqlite")}`,
    PORT: "0",
    // The emulator is on this machine: no reason to wait seconds between polls.
    POLL_INITIAL_MS: "250",
    POLL_MAX_MS: "1000",
    ...env,
  };
}

/**
 * Copies the bot's output into its log and resolves with the port of its "started" line;
 * rejects with the last thing it said on stderr (its one-line reason) when it exits first.
 */
function listeningPort(
  child: ChildProcessByStdio<null, Readable, Readable>,
  log: WriteStream,
  exited: Promise<number | null>,
): Promise<number> {
  const said: string[] = [];
  child.stderr.on("data", (chunk: Buffer) => {
    log.write(chunk);
    said.push(...chunk.toString("utf8").split("\n").filter(Boolean));
  });
  return new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout }).on("line", (line) => {
      log.write(`${line}\n`);
      const started = startedLine.safeParse(parseJson(line));
      if (started.success) resolve(started.data.port);
    });
    void exited.then((code) => {
      const reason = said.at(-1) ?? "see its log";
      reject(new Error(`the bot exited (code ${code}) before it started: ${reason}`));
    });
  });
}

/** Waits until `/readyz` answers 200: the store, the disk and Slack (its socket) are fine. */
async function ready(origin: string, child: ChildProcess, exited: Promise<unknown>) {
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline && !gone) {
    const status = await fetch(`${origin}/readyz`).then(
      (res) => res.status,
      () => 0,
    );
    if (status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (!gone) child.kill("SIGTERM");
  throw new Error(`the bot did not become ready within 30 s (its /readyz: ${origin}/readyz)`);
}

function parseJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}
