/** Small helpers shared by the benchmarks: statistics, child processes, the fake Slack. */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { JobRepository } from "../../src/jobs/index.ts";
import { stopChild } from "../helpers/stop-child.ts";

export const MiB = 1024 * 1024;

/** The environment of a benchmarked bot: HTTP mode against a fake Slack and the emulator. */
export function benchAppEnv(
  fake: { botToken: string; apiUrl: string },
  emulator: { baseUrl: string; apiKey: string },
  storeUrl: string,
): Record<string, string> {
  return {
    SLACK_BOT_TOKEN: fake.botToken,
    SLACK_SIGNING_SECRET: "bench-signing-secret-0123456789",
    SLACK_API_URL: fake.apiUrl,
    NOTE_TAKER_BASE_URL: emulator.baseUrl,
    NOTE_TAKER_API_KEY: emulator.apiKey,
    STORE_URL: storeUrl,
    LOG_LEVEL: "info",
  };
}

/** Rounds to one decimal. */
export function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** The median of the values (the mean of the two middle ones for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? Number.NaN)
    : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** The p-th percentile (0–100) by the nearest-rank method. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] ?? Number.NaN;
}

/** A comma-separated list of numbers from the environment, or the default. */
export function envNumbers(name: string, fallback: readonly number[]): number[] {
  const raw = process.env[name]?.trim();
  if (raw === undefined || raw === "") return [...fallback];
  const values = raw.split(",").map((part) => Number(part.trim()));
  if (values.some((v) => !Number.isFinite(v) || v <= 0)) {
    throw new Error(`${name} must be a comma-separated list of positive numbers, not "${raw}"`);
  }
  return values;
}

/** One number from the environment, or the default. */
export function envNumber(name: string, fallback: number): number {
  return envNumbers(name, [fallback])[0] ?? fallback;
}

export const benchFile = (name: string) => fileURLToPath(new URL(name, import.meta.url));

export interface ChildRun {
  /** Wall time from spawn to exit, measured in this process. */
  wallMs: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end; rejects on a non-zero exit. */
export function runChild(
  command: string,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, {
      env: { PATH: process.env.PATH ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (text: string) => {
      stdout += text;
    });
    child.stderr.setEncoding("utf8").on("data", (text: string) => {
      stderr += text;
    });
    child.once("error", reject);
    child.once("exit", (code, signal) => {
      const wallMs = performance.now() - started;
      if (code === 0) resolve({ wallMs, stdout, stderr });
      else
        reject(new Error(`${command} ${args.join(" ")} exited with ${code ?? signal}:\n${stderr}`));
    });
  });
}

/** The last JSON line a child printed. */
export function lastJson<T>(stdout: string): T {
  const line = stdout.trim().split("\n").at(-1) ?? "";
  return JSON.parse(line) as T;
}

/** What `fake-slack-child.ts` prints once listening. */
export interface FakeSlackReady {
  apiUrl: string;
  origin: string;
  botToken: string;
  /** Socket Mode's app-level token, when the fake was started with `socketMode`. */
  appToken?: string;
  teamId: string;
  botUserId: string;
  /** `url_private_download` of each file given, in order. */
  files: { id: string; url: string; size: number }[];
  responseUrl: string;
}

export interface FakeSlackProcess extends FakeSlackReady {
  stop(): Promise<void>;
}

/**
 * The fake Slack in its own process, so neither the load generator nor the bot shares its
 * event loop. `files` are served from disk with the bot token; `options` as
 * fake-slack-child.ts takes them.
 */
export async function spawnFakeSlack(
  files: { name: string; path: string }[] = [],
  options: { socketMode?: boolean; rateScale?: number } = {},
): Promise<FakeSlackProcess> {
  const child = spawn(
    process.execPath,
    [benchFile("./fake-slack-child.ts"), JSON.stringify({ files, ...options })],
    {
      env: { PATH: process.env.PATH ?? "" },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const ready = await new Promise<FakeSlackReady>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once("line", (line) => resolve(JSON.parse(line) as FakeSlackReady));
    child.once("exit", (code) => reject(new Error(`fake Slack exited with ${code}`)));
  });
  return {
    ...ready,
    stop: () => stopChild(child),
  };
}

/**
 * How many active jobs wait in `transcribing` with their task id saved (each submission is
 * saved just after the call returns).
 */
export async function countTranscribing(repo: Pick<JobRepository, "listActiveIds" | "get">) {
  let ready = 0;
  for (const id of await repo.listActiveIds()) {
    const job = await repo.get(id);
    if (job?.stage === "transcribing" && job.audio.taskId !== undefined) ready++;
  }
  return ready;
}

/** Waits `ms` milliseconds. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
