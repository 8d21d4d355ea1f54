import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { type AppProcess, spawnApp } from "../../helpers/spawn-app.ts";
import { stopChild } from "../../helpers/stop-child.ts";

const MAIN = fileURLToPath(new URL("./main.ts", import.meta.url));

let fake: ChildProcess | undefined;
let bot: AppProcess | undefined;

afterEach(async () => {
  await bot?.stop();
  if (fake !== undefined) await stopChild(fake);
  bot = undefined;
  fake = undefined;
});

describe("npm run fake-slack", () => {
  it("prints the environment for the bot, which then connects over Socket Mode and answers an upload", async () => {
    const child = spawn(process.execPath, [MAIN], { stdio: ["pipe", "pipe", "pipe"] });
    fake = child;
    const lines: string[] = [];
    if (child.stdout === null || child.stdin === null) throw new Error("no stdio");
    createInterface({ input: child.stdout }).on("line", (line) => lines.push(line));
    const printed = async (pattern: RegExp): Promise<string> => {
      for (let waited = 0; waited < 10_000; waited += 20) {
        const found = lines.find((line) => pattern.test(line));
        if (found !== undefined) return found;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error(`never printed ${pattern}:\n${lines.join("\n")}`);
    };

    const command = await printed(/SLACK_APP_TOKEN=xapp-/);
    const env = Object.fromEntries(
      [...command.matchAll(/([A-Z_]+)=(\S+)/g)].map(([, key = "", value = ""]) => [key, value]),
    );
    expect(Object.keys(env)).toEqual([
      "SLACK_BOT_TOKEN",
      "SLACK_APP_TOKEN",
      "SLACK_API_URL",
      "NOTE_TAKER_BASE_URL",
      "NOTE_TAKER_API_KEY",
    ]);
    bot = await spawnApp({ ...env, STORE_URL: "memory://" });
    const ready = await fetch(`http://127.0.0.1:${bot.port}/readyz`);
    expect(await ready.json()).toMatchObject({ ok: true, socket: true });

    child.stdin.write("upload standup.m4a\n");
    await printed(/^upload delivered$/);
    expect(await printed(/^\[bot [\d.]+\] /)).toMatch(/standup\.m4a/);
  });
});
