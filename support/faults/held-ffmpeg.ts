import { spawnSync } from "node:child_process";
import { chmod, readFile, rm, symlink, writeFile } from "node:fs/promises";

/**
 * The real FFmpeg behind a wrapper that waits while a file exists before it runs, so a test
 * can catch the bot mid-preparation; `-version` (the bot's start-up look) never waits. Each
 * run past the hold is noted, so a test can tell when a preparation started again.
 * ffprobe sits beside it (the bot looks for it there) as the real one.
 */
export async function heldFfmpeg(dir: string) {
  const real = (name: string) =>
    spawnSync("sh", ["-c", `command -v ${name}`])
      .stdout.toString()
      .trim();
  const path = `${dir}/ffmpeg`;
  const hold = `${dir}/ffmpeg-held`;
  const runs = `${dir}/ffmpeg-runs`;
  await writeFile(
    path,
    [
      "#!/bin/sh",
      'for arg in "$@"; do [ "$arg" = "-version" ] && exec REAL "$@"; done'.replace(
        "REAL",
        real("ffmpeg"),
      ),
      `while [ -e "${hold}" ]; do sleep 0.05; done`,
      `date +%s%3N >> "${runs}"`,
      `exec ${real("ffmpeg")} "$@"`,
      "",
    ].join("\n"),
  );
  await chmod(path, 0o700);
  await symlink(real("ffprobe"), `${dir}/ffprobe`);
  return {
    path,
    /** From now on FFmpeg waits before it starts. */
    hold: () => writeFile(hold, ""),
    /** FFmpeg runs: those waiting go on. */
    release: () => rm(hold, { force: true }),
    /** When (ms since the epoch) FFmpeg last started to work, past any hold. */
    lastRun: async (): Promise<number | undefined> => {
      const text = await readFile(runs, "utf8").catch(() => "");
      const last = text.trim().split("\n").at(-1);
      return last === undefined || last === "" ? undefined : Number(last);
    },
  };
}
