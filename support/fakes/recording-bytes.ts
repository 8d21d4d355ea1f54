import { readFileSync } from "node:fs";
import { extname, join } from "node:path";
import { sniffContainer } from "../../src/recordings/index.ts";

const FIXTURES = join(import.meta.dirname, "../../test/fixtures/audio");

/** A tiny real recording per supported extension (test/fixtures/audio/README.md). */
const SAMPLE_OF: Record<string, string> = {
  mp3: "tone-id3.mp3",
  mp4: "video.mp4",
  wav: "tone.wav",
  m4a: "tone.m4a",
  ogg: "tone.ogg",
  flac: "tone.flac",
  aac: "tone.aac",
  opus: "tone.opus",
  webm: "tone.webm",
};

/**
 * Bytes that pass for a recording named `name`, as a real upload would: a tiny real file
 * of the format its extension names (an m4a for any other name), cut or padded with
 * `fill` to exactly `size` bytes. Different `fill`s make different files of one size.
 * Throws when `size` is too small to hold the format's head (an AAC needs ~320 bytes).
 */
export function recordingBytes(name: string, size = 4096, fill = 7): Buffer {
  const sample = SAMPLE_OF[extname(name).slice(1).toLowerCase()] ?? "tone.m4a";
  const real = readFileSync(join(FIXTURES, sample));
  const bytes = Buffer.alloc(size, fill);
  real.copy(bytes, 0, 0, Math.min(size, real.length));
  if (sniffContainer(bytes).kind !== "audio") {
    throw new Error(`recordingBytes: ${size} bytes are too few for a real ${sample} head`);
  }
  return bytes;
}
