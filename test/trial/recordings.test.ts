import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sniffContainer } from "../../src/recordings/index.ts";
import { FFMPEG_AVAILABLE, probe } from "../../support/helpers/media-files.ts";
import { makeTempDir } from "../../support/helpers/temp-files.ts";
import { makeRecordings } from "../../support/trial/recordings.ts";
import { speechLikeSamples } from "../../support/trial/speech-audio.ts";
import { wavFile } from "../../support/trial/wav-file.ts";

let temp: Awaited<ReturnType<typeof makeTempDir>>;
beforeAll(async () => {
  temp = await makeTempDir("mn-trial-recordings-");
});
afterAll(() => temp.cleanup());

/** The share of 20 ms frames whose loudness is under a hundredth of the loudest frame's. */
function quietShare(samples: Int16Array, rate: number): number {
  const frame = rate / 50;
  const levels: number[] = [];
  for (let start = 0; start + frame <= samples.length; start += frame) {
    let sum = 0;
    for (let i = start; i < start + frame; i += 1) sum += (samples[i] ?? 0) ** 2;
    levels.push(Math.sqrt(sum / frame));
  }
  const loudest = Math.max(...levels);
  return levels.filter((level) => level < loudest / 100).length / levels.length;
}

describe("the trial's recordings", () => {
  it("sound like people talking: syllables with pauses between words and turns, the same on every run", () => {
    const samples = speechLikeSamples({ seconds: 14, sampleRate: 16_000 });
    expect(samples).toHaveLength(14 * 16_000);
    // Talk is never one steady tone nor silence: pauses, but mostly voice.
    expect(quietShare(samples, 16_000)).toBeGreaterThan(0.1);
    expect(quietShare(samples, 16_000)).toBeLessThan(0.5);
    expect(Math.max(...samples.subarray(0, 32_000).map(Math.abs))).toBeGreaterThan(10_000);
    expect(speechLikeSamples({ seconds: 14 })).toEqual(samples);
  });

  it("without FFmpeg: a WAV file the bot takes as it is, of the length written", async () => {
    const [wav, ...more] = await makeRecordings(temp.dir, { ffmpeg: false });
    expect(more).toEqual([]);
    expect(wav?.name).toBe("weekly-sync.wav");
    const bytes = await readFile(wav?.path ?? "");
    expect(sniffContainer(bytes)).toEqual({ kind: "audio", container: "wav" });
    // 16-bit mono at 16 kHz: 32,000 bytes a second after the 44-byte header.
    expect(bytes.readUInt32LE(40)).toBe(14 * 32_000);
    expect(wavFile(new Int16Array([1, -1]), 8000).subarray(44)).toEqual(
      Buffer.from([1, 0, 255, 255]),
    );
  });

  it.skipIf(!FFMPEG_AVAILABLE)(
    "with FFmpeg: an M4A of the talk, and a QuickTime movie with picture and sound",
    async () => {
      const [audio, movie] = await makeRecordings(`${temp.dir}`, { ffmpeg: true });
      expect(sniffContainer(await readFile(audio?.path ?? ""))).toMatchObject({ kind: "audio" });
      // An ISO BMFF movie: the bot sends no .mov as it is, it prepares it (trial.test.ts).
      expect(sniffContainer(await readFile(movie?.path ?? ""))).toEqual({
        kind: "audio",
        container: "isobmff",
      });
      const [heard, seen] = await Promise.all([probe(audio?.path ?? ""), probe(movie?.path ?? "")]);
      expect(heard.streams).toEqual(["audio"]);
      expect(heard.duration).toBeCloseTo(14, 0);
      expect(seen.streams.sort()).toEqual(["audio", "video"]);
      expect(seen.duration).toBeCloseTo(6, 0);
    },
  );
});
