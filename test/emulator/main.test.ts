import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const MAIN = fileURLToPath(new URL("../../support/emulator/main.ts", import.meta.url));

let child: ChildProcess | undefined;

afterEach(() => {
  if (child?.exitCode === null) child.kill("SIGKILL");
  child = undefined;
});

describe("npm run emulator", () => {
  it("prints one JSON line when ready, serves, and exits 0 on SIGTERM", async () => {
    child = spawn(process.execPath, [MAIN], {
      env: {
        ...process.env,
        EMULATOR_PORT: "0",
        EMULATOR_RESULT_PORT: "0",
        EMULATOR_API_KEY: "cli-key",
        EMULATOR_AUDIO_DURATION_MS: "0",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const stdout = child.stdout;
    if (stdout === null) throw new Error("no stdout");
    const [line] = (await once(createInterface({ input: stdout }), "line")) as [string];
    const ready = JSON.parse(line) as { baseUrl: string; resultOrigin: string; apiKey: string };
    expect(ready.apiKey).toBe("cli-key");
    expect(ready.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/third-party\/note-taker$/);
    expect(ready.resultOrigin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const poll = await fetch(`${ready.baseUrl}/audio2dialog/${crypto.randomUUID()}`, {
      headers: { "x-api-key": "cli-key" },
    });
    expect(poll.status).toBe(404);

    const exited = once(child, "exit");
    child.kill("SIGTERM");
    const [code] = (await exited) as [number | null];
    expect(code).toBe(0);
  });
});
