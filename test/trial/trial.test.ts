import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { childEnv } from "../../support/helpers/child-env.ts";
import { FFMPEG_AVAILABLE } from "../../support/helpers/media-files.ts";
import { makeTempDir } from "../../support/helpers/temp-files.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** `npm run trial -- …` as a person runs it, with its output and exit code. */
function npmRunTrial(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn("npm", ["run", "trial", "--", ...args], {
    cwd: ROOT,
    env: {
      ...childEnv(),
      HOME: process.env.HOME ?? "",
      // The emulator answers at once, and Slack's rate limits (the stand-in's and the bot's
      // budget alike) are 20 times Slack's: the journey is the same, minus the waiting.
      EMULATOR_AUDIO_DURATION_MS: "0",
      EMULATOR_POLLS_TO_COMPLETE: "1",
      TRIAL_RATE_SCALE: "20",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString("utf8");
  });
  child.stderr.on("data", (chunk: Buffer) => {
    err += chunk.toString("utf8");
  });
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, out, err })));
}

let temp: Awaited<ReturnType<typeof makeTempDir>>;
beforeAll(async () => {
  temp = await makeTempDir("mn-trial-");
});
afterAll(() => temp.cleanup());

describe.concurrent("npm run trial -- --auto", () => {
  it.each([
    ["Socket Mode", []],
    ["HTTP mode", ["--http"]],
  ])(
    "in %s walks each recording to its note and DOCX, printing the modal, the note and the saved files",
    async (mode, extra) => {
      const run = await npmRunTrial(["--auto", ...extra, "--dir", `${temp.dir}/${extra.length}`]);
      // Nothing on stderr but what npm itself may warn of (a user's own npm configuration).
      const said = run.err.split("\n").filter((line) => line !== "" && !/^npm warn/i.test(line));
      expect(said, run.out).toEqual([]);
      expect(run.code).toBe(0);
      expect(run.out).toContain(`meeting-notes trial (${mode})`);
      // The naming modal as the bot filled it, with each speaker's quotes.
      expect(run.out).toMatch(/┌─ Modal: Name the speakers/);
      expect(run.out.match(/│ > `\d\d:\d\d` \w/g)?.length).toBeGreaterThanOrEqual(2);
      // The note's first lines, with the names --auto typed in the modal.
      expect(run.out).toMatch(/\| # Meeting notes\n[\s\S]*\| - Lan Pham\n {2}\| - Minh Tran\n/);
      const recordings = FFMPEG_AVAILABLE
        ? ["weekly-sync.m4a", "standup.mov"]
        : ["weekly-sync.wav"];
      const docx = [...run.out.matchAll(/^ {2}DOCX +(\/.+\.docx) \(/gm)].map((m) => m[1] ?? "");
      expect(docx).toHaveLength(recordings.length);
      // The movie goes through the bot's FFmpeg before the Note Service gets its sound.
      if (FFMPEG_AVAILABLE) expect(run.out).toContain("Taking the sound out of standup.mov");
      for (const path of docx) {
        // A real Word file: a ZIP container.
        expect((await readFile(path)).subarray(0, 2).toString("latin1")).toBe("PK");
      }
      expect(run.out).toContain(
        `The note and the DOCX of ${recordings.join(" and ")} arrived (${mode}`,
      );
    },
    90_000,
  );
});
