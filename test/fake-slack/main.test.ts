import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { childEnv } from "../../support/helpers/child-env.ts";
import { eventually } from "../../support/helpers/eventually.ts";
import { type AppProcess, spawnApp } from "../../support/helpers/spawn-app.ts";
import { stopChild } from "../../support/helpers/stop-child.ts";

const MAIN = fileURLToPath(new URL("../../support/fake-slack/main.ts", import.meta.url));

let fake: ChildProcess | undefined;
let bot: AppProcess | undefined;

afterEach(async () => {
  await bot?.stop();
  if (fake !== undefined) await stopChild(fake);
  bot = undefined;
  fake = undefined;
});

/** The fake's output as it comes, read in order: each wait starts where the last match ended. */
function outputOf(child: ChildProcess) {
  let out = "";
  let from = 0;
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString("utf8");
  });
  return {
    async printed(pattern: RegExp): Promise<RegExpExecArray> {
      const match = await eventually(
        () => pattern.exec(out.slice(from)),
        (m) => m !== null,
        // A ceiling for a child's start beside another suite (over 10 s seen), not a wait.
        { what: String(pattern), context: () => out.slice(from), timeoutMs: 45_000 },
      );
      if (match === null) throw new Error("unreachable");
      from += match.index + match[0].length;
      return match;
    },
  };
}

describe("npm run fake-slack", () => {
  it("prints the bot's environment, then every message, modal and ephemeral answer the bot sends to its commands", async () => {
    const child = spawn(process.execPath, [MAIN], {
      env: {
        ...childEnv(),
        EMULATOR_AUDIO_DURATION_MS: "0",
        EMULATOR_POLLS_TO_COMPLETE: "1",
        // Slack's rate limits and the bot's budget, alike, 20 times Slack's: no pacing to wait on.
        TRIAL_RATE_SCALE: "20",
      },
      stdio: ["pipe", "pipe", "inherit"],
    });
    fake = child;
    const out = outputOf(child);
    const type = (line: string) => child.stdin?.write(`${line}\n`);

    const [command = ""] = await out.printed(/SLACK_BOT_TOKEN=\S+.* npm start/);
    const env = Object.fromEntries(
      [...command.matchAll(/([A-Z_]+)=(\S+)/g)].map(([, key = "", value = ""]) => [key, value]),
    );
    expect(Object.keys(env)).toEqual([
      "SLACK_BOT_TOKEN",
      "SLACK_APP_TOKEN",
      "SLACK_API_URL",
      "NOTE_TAKER_BASE_URL",
      "NOTE_TAKER_API_KEY",
      "SLACK_RATE_SHARE",
    ]);
    bot = await spawnApp({
      ...env,
      STORE_URL: "memory://",
      POLL_INITIAL_MS: "50",
      POLL_MAX_MS: "200",
    });
    const ready = await eventually(
      () => fetch(`http://127.0.0.1:${bot?.port}/readyz`).then((r) => r.json()),
      (body) => (body as { ok?: boolean }).ok === true,
    );
    expect(ready).toMatchObject({ socket: true });

    // A real recording: the bot takes it and asks for names (4 KB of one byte it refused).
    type("upload");
    await out.printed(/Alice shares weekly-sync\.(m4a|wav) in #weekly-sync/);
    await out.printed(/Heard 2 speakers[\s\S]*\[Name speakers\] \[Skip\] \[Cancel\]/);

    // The click opens the modal the bot filled, printed with each speaker's quotes.
    type("click nameSpeakers");
    await out.printed(
      /┌─ Modal: Name the speakers\n[\s\S]*│ > `\d\d:\d\d` \w[\s\S]*└─ \[Write notes\] \[Cancel\]/,
    );
    await out.printed(
      /Speaker \d \(\d+% of talk time\): a name, @alice or @bob, or Enter to skip: /,
    );
    type("Lan Pham");
    type("@bob");
    await out.printed(/Alice submitted the modal/);
    await out.printed(/Notes ready\./);

    // Answers only Alice sees, and the modals of the slash command.
    type("command help");
    await out.printed(
      /\[the bot's answer to \/meeting-notes help, only Alice sees it\]\n {2}\*Meeting notes/,
    );
    type("command settings");
    await out.printed(/┌─ Modal: Channel settings\n[\s\S]*Defaults for recordings in #weekly-sync/);

    type("quit");
    const code = await new Promise((resolve) => child.once("exit", resolve));
    expect(code).toBe(0);
    // Two processes started (the fake with its emulator, then the bot): a loaded machine's ceiling.
  }, 120_000);
});
