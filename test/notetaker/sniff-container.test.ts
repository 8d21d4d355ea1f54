import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SNIFF_BYTES, type Sniffed, sniffContainer } from "../../src/notetaker/sniff-container.ts";

/** Real files made by ffmpeg, heif-enc, zip…: test/fixtures/audio/README.md says how. */
const FIXTURES = join(import.meta.dirname, "../fixtures/audio");

/** The file's head, as the job step reads it: never more than SNIFF_BYTES. */
function head(name: string, bytes = SNIFF_BYTES): Uint8Array {
  return readFileSync(join(FIXTURES, name)).subarray(0, Math.min(bytes, SNIFF_BYTES));
}

const audio = (container: string): Sniffed => ({ kind: "audio", container }) as Sniffed;
const other = (format: string): Sniffed => ({ kind: "other_media", format });
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
