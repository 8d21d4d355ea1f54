import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createClient } from "@keyv/redis";
import { type DeliveredState, type Job, jobSchema } from "../../src/jobs/index.ts";
import type { SpeakerName } from "../../src/notetaker/index.ts";
import type { GatewayRecord } from "../fakes/recording-gateway.ts";
import { childEnv } from "../helpers/child-env.ts";

const WORKER = fileURLToPath(new URL("./worker.ts", import.meta.url));

/** Env of `worker.ts` (see there); every value a string. */
export interface WorkerEnv {
  STORE_URL: string;
  KEY_PREFIX: string;
  NOTE_TAKER_BASE_URL: string;
  NOTE_TAKER_API_KEY: string;
  JOURNAL: string;
  SOURCE: string;
  TEMP_DIR: string;
  DOWNLOAD_DELAY_MS?: string;
  PART_DELAY_MS?: string;
  LEASE_TTL_MS?: string;
  QUEUE_CHECK_MS?: string;
  CRASH_AT?: string;
  STALL_AT?: string;
  STALL_MS?: string;
}

export type StartReply =
  | { status: "created"; jobId: string }
  | { status: "duplicate" }
  | { status: "refused"; reason: string };

export type CommandReply = { ok: true; job: unknown } | { ok: false; reason: string };

/** A worker process and its control API. */
export interface WorkerProcess {
  pid: number;
  child: ChildProcess;
  start(body: {
    fileId: string;
    filename?: string;
    channelId?: string;
    options?: Record<string, unknown>;
  }): Promise<StartReply>;
  /** The job as the worker's store has it; undefined when unknown or the worker is gone. */
  job(id: string): Promise<Job | undefined>;
  names(id: string, speakerMap: SpeakerName[]): Promise<CommandReply>;
  skip(id: string): Promise<CommandReply>;
  /** kill -9, resolved once the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM, resolved once the process is gone (killed after 5 s). */
  stop(): Promise<void>;
  /** Resolves with the signal (or exit code) the process ended with. */
  exited: Promise<string>;
  /** Everything it wrote (logs only with TEST_LOG_LEVEL), for failure messages. */
  output(): string;
  /** How many steps the worker's runner has under way. */
  running(): Promise<number>;
}

/** Starts `worker.ts` and waits for its `{"port","pid"}` line. */
export async function spawnWorker(env: WorkerEnv): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [WORKER], {
    env: {
      ...childEnv(),
      ...(process.env.TEST_LOG_LEVEL ? { TEST_LOG_LEVEL: process.env.TEST_LOG_LEVEL } : {}),
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<string>((resolve) => {
    child.once("exit", (code, signal) => resolve(signal ?? String(code)));
  });
  const port = await new Promise<number>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    lines.on("line", (line) => {
      output += `${line}\n`;
      try {
        const parsed = JSON.parse(line) as { port?: unknown };
        if (typeof parsed.port === "number") resolve(parsed.port);
      } catch {
        // a log line
      }
    });
    void exited.then((how) =>
      reject(new Error(`worker exited (${how}) before it was ready:\n${output}`)),
    );
  });
  const base = `http://127.0.0.1:${port}`;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as unknown };
  };
  const signalled = async (signal: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
  };
  return {
    pid: child.pid ?? 0,
    child,
    start: async (body) => (await call("POST", "/start", body)).body as StartReply,
    async job(id) {
      if (child.exitCode !== null || child.signalCode !== null) return undefined;
      const res = await call("GET", `/jobs/${id}`);
      return res.status === 200 ? jobSchema.parse(res.body) : undefined;
    },
    names: async (id, speakerMap) =>
      (await call("POST", `/jobs/${id}/names`, { speakerMap })).body as CommandReply,
    skip: async (id) => (await call("POST", `/jobs/${id}/skip`)).body as CommandReply,
    running: async () => ((await call("GET", "/runner")).body as { running: number }).running,
    kill: () => signalled("SIGKILL"),
    stop: () => signalled("SIGTERM"),
    exited,
    output: () => output,
  };
}

/** Everything the gateway journal holds (what "Slack" saw), in order. */
export function readJournal(path: string): GatewayRecord[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as GatewayRecord);
}

/** `SlackPort.findDelivered` answered from the journal as it is now (shared by processes). */
export function findInJournal(path: string, jobId: string): DeliveredState {
  const mine = readJournal(path).filter((r) => r.jobId === jobId);
  const docx = mine.find((r) => r.op === "docx");
  const transcript = mine.find((r) => r.op === "transcript");
  return {
    parts: mine.flatMap((r) => (r.op === "part" ? [r.index] : [])),
    docxFileId: docx?.op === "docx" ? docx.fileId : undefined,
    transcriptFileIds: transcript?.op === "transcript" ? transcript.fileIds : [],
  };
}

/** What was delivered into one job's thread, from the journal. */
export function deliveredOf(records: GatewayRecord[], jobId: string) {
  const mine = records.filter((r) => r.jobId === jobId);
  const parts = mine.flatMap((r) => (r.op === "part" ? [r] : []));
  const docx = mine.flatMap((r) => (r.op === "docx" ? [r] : []));
  const downloads = mine.filter((r) => r.op === "download").length;
  const indexes = parts.map((p) => p.index);
  const totals = [...new Set(parts.map((p) => p.total))];
  return { parts, docx, downloads, indexes, totals };
}

export const randomId = () => Math.random().toString(36).slice(2, 10);

/** A key prefix per test file and run (`mn-test-…`); tests add their own suffix to it. */
export const runPrefix = () => `mn-test-${randomUUID().slice(0, 8)}`;

/** Deletes every Redis key under `prefix` (a test file's run prefix) once it is done. */
export async function dropRedisKeys(url: string, prefix: string): Promise<void> {
  const raw = createClient({ url });
  await raw.connect();
  try {
    const keys: string[] = [];
    for await (const batch of raw.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) {
      keys.push(...batch);
    }
    if (keys.length > 0) await raw.del(keys);
  } finally {
    raw.destroy();
  }
}
