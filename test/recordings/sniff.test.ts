import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  demuxerOf,
  MEDIA_DEMUXERS,
  type ReadAt,
  SNIFF_BYTES,
  type Sniffed,
  sniffContainer,
  sniffRecording,
} from "../../src/recordings/index.ts";

/** Real files made by ffmpeg, heif-enc, zip…: test/fixtures/audio/README.md says how. */
const FIXTURES = join(import.meta.dirname, "../fixtures/audio");

/** The file's head, as the job step reads it: never more than SNIFF_BYTES. */
function head(name: string, bytes = SNIFF_BYTES): Uint8Array {
  return readFileSync(join(FIXTURES, name)).subarray(0, Math.min(bytes, SNIFF_BYTES));
}

const audio = (container: string): Sniffed => ({ kind: "audio", container }) as Sniffed;
const other = (format: string): Sniffed => ({ kind: "other_media", format }) as Sniffed;
const notMedia: Sniffed = { kind: "not_media" };

describe("sniffContainer", () => {
  it.each([
    ["tone-id3.mp3", audio("mp3")],
    ["tone-frames.mp3", audio("mp3")],
    ["tone.wav", audio("wav")],
    ["tone.m4a", audio("isobmff")],
    ["video.mp4", audio("isobmff")],
    ["tone.mov", audio("isobmff")],
    ["tone.3gp", audio("isobmff")],
    ["tone.ogg", audio("ogg")],
    ["tone.opus", audio("ogg")],
    ["tone.flac", audio("flac")],
    ["tone.aac", audio("adts")],
    ["tone.webm", audio("ebml")],
    ["video.mkv", audio("ebml")],
  ])("knows %s as a container the Note Service takes", (name, expected) => {
    expect(sniffContainer(head(name))).toEqual(expected);
  });

  it.each([
    ["tone.aiff", other("AIFF")],
    ["tone.avi", other("AVI")],
    ["tone.wma", other("Windows Media")],
    ["tone.caf", other("CAF")],
    ["tone.flv", other("FLV")],
    ["tone.au", other("AU")],
    ["tone.mpg", other("MPEG program stream")],
    ["tone.m2t", other("MPEG transport stream")],
  ])("knows %s as audio or video in a format the Note Service does not take", (name, expected) => {
    expect(sniffContainer(head(name))).toEqual(expected);
  });

  it.each([
    "notes.txt",
    "notes-bom.txt",
    // Starts FF FE, which also reads as an MPEG layer I header: a second frame must follow.
    "notes-utf16.txt",
    "login.html",
    "agenda.pdf",
    "screenshot.png",
    "photo.jpg",
    // ISO BMFF like an m4a, but an image brand.
    "photo.heic",
    "photo.avif",
    "archive.zip",
    "minutes.docx",
  ])("refuses %s as not audio or video", (name) => {
    expect(sniffContainer(head(name))).toEqual(notMedia);
  });

  it("refuses an empty file", () => {
    expect(sniffContainer(new Uint8Array(0))).toEqual(notMedia);
  });

  it.each([
    // Just short of what each check must see.
    ["tone-id3.mp3", 9],
    ["tone.wav", 11],
    ["tone.m4a", 15],
    ["tone.ogg", 4],
    ["tone.flac", 7],
    ["tone.webm", 3],
    // The first MPEG frame is 180 bytes: the second frame's header is cut.
    ["tone-frames.mp3", 183],
    ["tone-frames.mp3", 1],
    ["tone.aac", 6],
  ])("refuses %s cut to its first %i bytes", (name, bytes) => {
    expect(sniffContainer(head(name, bytes))).toEqual(notMedia);
  });

  it("needs the second ADTS frame where the first one ends", () => {
    const bytes = Buffer.from(head("tone.aac"));
    const firstLength = ((bytes[3] ?? 0) & 3) * 2048 + (bytes[4] ?? 0) * 8 + ((bytes[5] ?? 0) >> 5);
    expect(sniffContainer(bytes.subarray(0, firstLength + 7))).toEqual(audio("adts"));
    expect(sniffContainer(bytes.subarray(0, firstLength + 6))).toEqual(notMedia);
    bytes[firstLength] = 0x00;
    expect(sniffContainer(bytes)).toEqual(notMedia);
  });

  it("refuses the bytes the old tests used as fake recordings", () => {
    expect(sniffContainer(new Uint8Array(4096).fill(7))).toEqual(notMedia);
    expect(sniffContainer(new Uint8Array(4096))).toEqual(notMedia);
  });
});

/** An ID3v2 tag of `size` bytes of body (zeros unless given), as a tagger writes it. */
function id3(size: number, o: { version?: number; flags?: number; body?: Uint8Array } = {}) {
  const header = Buffer.from([0x49, 0x44, 0x33, o.version ?? 4, 0, o.flags ?? 0, 0, 0, 0, 0]);
  // The size is "syncsafe": four bytes of seven bits each.
  for (let i = 0; i < 4; i++) header[9 - i] = (size >> (7 * i)) & 0x7f;
  const body = Buffer.alloc(size);
  if (o.body !== undefined) Buffer.from(o.body).copy(body);
  const footer = (o.flags ?? 0) & 0x10 ? Buffer.from(header).fill(0x33, 0, 3) : Buffer.alloc(0);
  return Buffer.concat([header, body, footer]);
}

/** The MPEG audio frames of a real mp3, without its own tag. */
const FRAMES = readFileSync(join(FIXTURES, "tone-frames.mp3"));
/** A real ADTS AAC stream. */
const ADTS = readFileSync(join(FIXTURES, "tone.aac"));

/** A reader over bytes in memory, counting what it was asked for. */
function readerOf(bytes: Uint8Array): ReadAt & { asked: number[] } {
  const asked: number[] = [];
  const read = async (offset: number, length: number) => {
    asked.push(offset);
    return bytes.subarray(offset, offset + length);
  };
  return Object.assign(read, { asked });
}

const sniffBytes = (bytes: Uint8Array) => sniffRecording(readerOf(bytes));

describe("an ID3 tag says nothing of what follows it", () => {
  const text = (s: string) => Buffer.from(s, "utf8");
  it.each([
    ["a concat list naming another job's file", text("ffconcat version 1.0\nfile job-1.mp3\n")],
    ["an HLS playlist with an absolute path", text("#EXTM3U\n#EXTINF:9,\n/var/tmp/x.mp3\n")],
    ["an HLS playlist climbing out", text("#EXTM3U\n#EXTINF:9,\n../../other/a.mp3\n")],
    ["a web page", text("<!doctype html><html><body>Sign in</body></html>")],
    ["plain text", text("These are not the minutes you are looking for.\n")],
    ["a tracker module", Buffer.concat([Buffer.alloc(1080), text("M.K."), Buffer.alloc(2048)])],
    ["one MPEG frame and text", Buffer.concat([FRAMES.subarray(0, 180), text("#EXTM3U\\n")])],
  ])("refuses an ID3 tag followed by %s", async (_what, after) => {
    const bytes = Buffer.concat([Buffer.from("ID3\x04\0\0\0\0\0\0", "latin1"), after]);
    expect(sniffContainer(bytes)).toEqual(notMedia);
    expect(await sniffBytes(bytes)).toEqual(notMedia);
  });

  it("takes an ID3 tag followed by MPEG audio frames, and by ADTS frames", async () => {
    expect(await sniffBytes(Buffer.concat([id3(64), FRAMES]))).toEqual(audio("mp3"));
    expect(await sniffBytes(Buffer.concat([id3(64), ADTS]))).toEqual(audio("adts"));
    expect(sniffContainer(Buffer.concat([id3(64), FRAMES]))).toEqual(audio("mp3"));
  });

  it("reads past a tag larger than a file's head (cover art), at the tag's end", async () => {
    const bytes = Buffer.concat([id3(500_000), FRAMES]);
    const reader = readerOf(bytes);
    expect(await sniffRecording(reader)).toEqual(audio("mp3"));
    expect(reader.asked).toEqual([0, 500_010]);
    // The head alone cannot tell.
    expect(sniffContainer(bytes.subarray(0, SNIFF_BYTES))).toEqual(notMedia);
  });

  it("reads past a v2.4 footer, two tags in a row, and a taggers' padding of zeros", async () => {
    expect(await sniffBytes(Buffer.concat([id3(100, { flags: 0x10 }), FRAMES]))).toEqual(
      audio("mp3"),
    );
    expect(await sniffBytes(Buffer.concat([id3(30), id3(3, { version: 3 }), FRAMES]))).toEqual(
      audio("mp3"),
    );
    expect(await sniffBytes(Buffer.concat([id3(30), Buffer.alloc(700), FRAMES]))).toEqual(
      audio("mp3"),
    );
  });

  it("refuses tags without end, and a tag whose end lies past the file", async () => {
    const many = Buffer.concat([id3(10), id3(10), id3(10), id3(10), FRAMES]);
    expect(await sniffBytes(many)).toEqual(notMedia);
    expect(await sniffBytes(id3(100_000).subarray(0, 5000))).toEqual(notMedia);
    expect(await sniffBytes(Buffer.concat([id3(30), Buffer.alloc(5000), FRAMES]))).toEqual(
      notMedia,
    );
  });
});

describe("containers FFmpeg prepares, known by their magic bytes", () => {
  const head = (...parts: (string | number[])[]) =>
    Buffer.concat([
      ...parts.map((p) => (typeof p === "string" ? Buffer.from(p, "latin1") : Buffer.from(p))),
      Buffer.alloc(64),
    ]);
  it.each([
    ["AMR", head("#!AMR\n"), "amr"],
    ["AMR", head("#!AMR-WB\n"), "amr"],
    ["WavPack", head("wvpk"), "wv"],
    ["Monkey's Audio", head("MAC ", [0x96, 0x0f]), "ape"],
    ["Sony Wave64", head([0x72, 0x69, 0x66, 0x66, 0x2e, 0x91, 0xcf, 0x11]), "w64"],
    ["Creative Voice", head("Creative Voice File\x1a"), "voc"],
    ["RealMedia", head(".RMF", [0, 0, 0, 0x12]), "rm"],
  ])("knows %s and names its one demuxer", async (format, bytes, demuxer) => {
    const sniffed = await sniffBytes(bytes);
    expect(sniffed).toEqual(other(format));
    expect(demuxerOf(sniffed)).toBe(demuxer);
  });

  it("names a demuxer for every container it knows, and none for what is not media", () => {
    const sniffed: Sniffed[] = [
      ...(["mp3", "wav", "isobmff", "ogg", "flac", "adts", "ebml"] as const).map(audio),
      other("AIFF"),
      other("MPEG transport stream"),
    ];
    for (const s of sniffed) expect(MEDIA_DEMUXERS).toContain(demuxerOf(s));
    expect(demuxerOf(notMedia)).toBeUndefined();
    // Never one that opens other files, URLs or generates sound.
    for (const open of ["concat", "hls", "dash", "image2", "lavfi", "libopenmpt", "tty"]) {
      expect(MEDIA_DEMUXERS).not.toContain(open);
    }
  });
});
