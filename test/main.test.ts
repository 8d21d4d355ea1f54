import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it, onTestFinished } from "vitest";
import { createFakeSlack } from "../support/fake-slack/create-fake-slack.ts";
import { childEnv } from "../support/helpers/child-env.ts";

const MAIN = fileURLToPath(new URL("../src/main.ts", import.meta.url));

function run(env: Record<string, string>) {
  return new Promise<{ code: number | null; stderr: string; ms: number }>((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [MAIN], {
      env: { ...childEnv(), ...env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("close", (code) => resolve({ code, stderr, ms: Date.now() - started }));
  });
}

describe("main", () => {
  it("lists the missing variables and exits 1 at once (well within 5 s), without a stack trace", async () => {
    const { code, stderr, ms } = await run({ PATH: process.env.PATH ?? "" });
    expect(code).toBe(1);
    // A start takes ≈0.7 s here; 5 s leaves room for a loaded machine, and still catches
    // a bot that tries to connect anywhere before reading its configuration.
    expect(ms).toBeLessThan(5000);
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
    // The bot checks its token with Slack before it serves: a fake Slack answers.
    const slack = await createFakeSlack();
    onTestFinished(() => slack.close());
    const child = spawn(process.execPath, [MAIN], {
      env: {
        ...childEnv(),
        SLACK_BOT_TOKEN: slack.botToken,
        SLACK_API_URL: slack.apiUrl,
        SLACK_SIGNING_SECRET: "test-signing-secret",
        NOTE_TAKER_BASE_URL: "http://127.0.0.1:9/api/v1/third-party/note-taker",
        NOTE_TAKER_API_KEY: "test-api-key",
        PORT: "0",
        STORE_URL: "memory://",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const port = await new Promise<number>((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (chunk) => {
        out += chunk;
        const match = /"port":(\d+)/.exec(out);
        if (match?.[1]) resolve(Number(match[1]));
      });
      child.on("close", () => reject(new Error(`exited early: ${out}`)));
    });
    const res = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(res.status).toBe(200);
    const exit = new Promise((resolve) => child.on("close", resolve));
    child.kill("SIGTERM");
    expect(await exit).toBe(0);
  });
});
