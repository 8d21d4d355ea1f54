import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it, onTestFinished } from "vitest";
import { startScriptOf } from "../support/bench/start-script.ts";
import { createFakeSlack } from "../support/fake-slack/create-fake-slack.ts";
import { childEnv } from "../support/helpers/child-env.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const MAIN = fileURLToPath(new URL("../src/main.ts", import.meta.url));
const WARM = fileURLToPath(new URL("../scripts/warm-compile-cache.ts", import.meta.url));
/** A preload that writes the process's internal modules to stderr as it exits. */
const LIST_MODULES_AT_EXIT = `data:text/javascript,${encodeURIComponent(
  'process.on("exit", () => process.stderr.write("MODULES " + JSON.stringify(process.moduleLoadList) + "\\n"));',
)}`;

function run(env: Record<string, string>) {
  return new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [MAIN], {
      env: { ...childEnv(), ...env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("close", (code) => resolve({ code, stderr }));
  });
}

describe("main", () => {
  it("lists the missing variables and exits 1 before asking anything of anyone, without a stack trace", async () => {
    // "At once" is shown by what it did not do, not by a clock a loaded machine stretches:
    // the Slack it was pointed at heard nothing before the refusal.
    const connections: string[] = [];
    const slack = createServer((req, res) => {
      connections.push(req.url ?? "");
      res.end();
    });
    slack.on("connection", () => connections.push("connection"));
    await new Promise<void>((resolve) => slack.listen(0, "127.0.0.1", resolve));
    onTestFinished(() => new Promise<void>((resolve) => slack.close(() => resolve())));
    const { port } = slack.address() as AddressInfo;
    const { code, stderr } = await run({
      PATH: process.env.PATH ?? "",
      SLACK_API_URL: `http://127.0.0.1:${port}/api/`,
    });
    expect(code).toBe(1);
    expect(connections).toEqual([]);
    for (const name of [
      "SLACK_BOT_TOKEN",
      "NOTE_TAKER_BASE_URL",
      "NOTE_TAKER_API_KEY",
      "SLACK_SIGNING_SECRET",
    ]) {
      expect(stderr).toContain(`${name} is missing`);
    }
    expect(stderr).not.toMatch(/^\s+at /m);
    expect(stderr).not.toMatch(/Error:/);
  });

  it("serves /healthz with a valid configuration and stops with 0 on SIGTERM", async () => {
    const { stderr } = await startServeStop({});
    expect(stderr).not.toMatch(/Error/);
  });

  it("starts without Node's TypeScript stripper once the compile cache is warm", async () => {
    // Warmed and started as the image does: under the V8 flags of `npm start`.
    const { nodeArgs } = startScriptOf(ROOT);
    const cache = await mkdtemp(join(tmpdir(), "mn-compile-cache-"));
    onTestFinished(() => rm(cache, { recursive: true, force: true }));
    const warm = await runToEnd([...nodeArgs, WARM], { ...childEnv(), NODE_COMPILE_CACHE: cache });
    expect(warm.code, warm.stderr).toBe(0);
    const { loaded } = await startServeStop({ NODE_COMPILE_CACHE: cache }, nodeArgs);
    expect(loaded.some((name) => /amaro/.test(name))).toBe(false);
    // With a cache not yet filled the same start loads it: the check above can fail.
    const empty = await mkdtemp(join(tmpdir(), "mn-compile-cache-"));
    onTestFinished(() => rm(empty, { recursive: true, force: true }));
    const cold = await startServeStop({ NODE_COMPILE_CACHE: empty }, nodeArgs);
    expect(cold.loaded.some((name) => /amaro/.test(name))).toBe(true);
    // Three Node processes compile every module: beside a second copy of the suite they
    // outlasted 60 s. Each wait ends when its process does.
  }, 180_000);

  it("starts when the compile cache folder cannot be made", async () => {
    const dir = await mkdtemp(join(tmpdir(), "mn-compile-cache-"));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    // A file where the folder should be: unusable even to root, which ignores permissions.
    const notAFolder = join(dir, "cache");
    await writeFile(notAFolder, "");
    await startServeStop({ NODE_COMPILE_CACHE: join(notAFolder, "below") });
  });
});

/** Runs Node with `args` to its end without blocking the test's event loop. */
function runToEnd(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stderr }));
  });
}

/**
 * Starts the bot against a fake Slack, checks it serves /healthz, stops it with SIGTERM and
 * expects exit 0; returns its stderr and the internal modules it loaded (a preload prints
 * `process.moduleLoadList` at exit).
 */
async function startServeStop(
  extraEnv: Record<string, string>,
  nodeArgs: readonly string[] = [],
): Promise<{ stderr: string; loaded: string[] }> {
  // The bot checks its token with Slack before it serves: a fake Slack answers.
  const slack = await createFakeSlack();
  onTestFinished(() => slack.close());
  const child = spawn(process.execPath, [...nodeArgs, "--import", LIST_MODULES_AT_EXIT, MAIN], {
    env: {
      ...childEnv(),
      SLACK_BOT_TOKEN: slack.botToken,
      SLACK_API_URL: slack.apiUrl,
      SLACK_SIGNING_SECRET: "test-signing-secret",
      NOTE_TAKER_BASE_URL: "http://127.0.0.1:9/api/v1/third-party/note-taker",
      NOTE_TAKER_API_KEY: "test-api-key",
      PORT: "0",
      STORE_URL: "memory://",
      ...extraEnv,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const match = /"port":(\d+)/.exec(out);
      if (match?.[1]) resolve(Number(match[1]));
    });
    child.on("close", () => reject(new Error(`exited early: ${out}${stderr}`)));
  });
  const res = await fetch(`http://127.0.0.1:${port}/healthz`);
  expect(res.status).toBe(200);
  const exit = new Promise((resolve) => child.on("close", resolve));
  child.kill("SIGTERM");
  expect(await exit).toBe(0);
  const list = /^MODULES (.*)$/m.exec(stderr)?.[1];
  expect(list, stderr).toBeDefined();
  return { stderr, loaded: JSON.parse(list ?? "[]") as string[] };
}
