import { appendFile, writeFile } from "node:fs/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readGrowingFile, WriteProgress } from "../../src/jobs/files/growing-file.ts";
import { makeTempDir } from "../../support/helpers/temp-files.ts";

let temp: Awaited<ReturnType<typeof makeTempDir>>;
beforeEach(async () => {
  temp = await makeTempDir("mn-growing-");
});
afterEach(() => temp.cleanup());

/** Reads the whole stream, noting how many bytes had come before the writer finished. */
async function readAll(stream: AsyncIterable<Uint8Array>, progress: { finished: boolean }) {
  const chunks: Buffer[] = [];
  let beforeFinish = 0;
  for await (const chunk of stream) {
    chunks.push(Buffer.from(chunk));
    if (!progress.finished) beforeFinish += chunk.byteLength;
  }
  return { bytes: Buffer.concat(chunks), beforeFinish };
}

describe("readGrowingFile", () => {
  it("follows a file as it is written and gives its last bytes only once the writer is done", async () => {
    const path = await temp.file("rec.mp3", "");
    const progress = new WriteProgress();
    const state = { finished: false };
    const whole = Buffer.alloc(200 * 1024, 3);
    const reading = readAll(readGrowingFile(path, whole.length, progress), state);
    for (let at = 0; at < whole.length; at += 50 * 1024) {
      await appendFile(path, whole.subarray(at, at + 50 * 1024));
      progress.update(Math.min(whole.length, at + 50 * 1024));
      await new Promise((resolve) => setImmediate(resolve));
    }
    // Everything is on disk, but the reader still holds the last chunk back.
    state.finished = true;
    progress.finish();
    const { bytes, beforeFinish } = await reading;
    expect(bytes.equals(whole)).toBe(true);
    expect(beforeFinish).toBeGreaterThan(0);
    expect(beforeFinish).toBeLessThan(whole.length);
  });

  it("fails when the finished file is longer or shorter than announced", async () => {
    for (const actual of [1000, 3000]) {
      const path = await temp.file(`rec-${actual}.mp3`, Buffer.alloc(actual, 1));
      const progress = new WriteProgress();
      progress.update(actual);
      progress.finish();
      await expect(
        readAll(readGrowingFile(path, 2000, progress), { finished: true }),
      ).rejects.toThrow(/ended at|ends at/);
    }
  });

  it("fails with the writer's error, and on abort", async () => {
    const path = await temp.file("rec.mp3", "");
    const failing = new WriteProgress();
    const reading = readAll(readGrowingFile(path, 10, failing), { finished: false });
    failing.fail(new Error("download cut"));
    await expect(reading).rejects.toThrow("download cut");

    const controller = new AbortController();
    const waiting = readAll(readGrowingFile(path, 10, new WriteProgress(), controller.signal), {
      finished: false,
    });
    controller.abort(new Error("canceled"));
    await expect(waiting).rejects.toThrow("canceled");
    await writeFile(path, "");
  });
});
