/**
 * What a recording's first bytes say it is, whatever its name claims. Pure: the caller
 * reads the head of the file (`SNIFF_BYTES` at most) and this looks at it.
 *
 * - `audio`: a container of the families the Note Service takes (note-taker-api.md §8):
 *   MPEG audio (an ID3 tag or two MPEG frames in a row), RIFF/WAVE, ISO BMFF (`ftyp`: m4a,
 *   mp4, and their cousins mov and 3gp, which share the box structure), Ogg (Vorbis, Opus),
 *   FLAC, ADTS AAC (two frames in a row) and EBML (WebM, Matroska).
 * - `other_media`: audio or video in a container outside those families (AIFF, AVI, WMA…):
 *   a real recording the Note Service would refuse late, so it gets its own sentence.
 * - `not_media`: anything else — text, a web page, a PDF, an image, an archive, an empty or
 *   truncated file.
 */
export type Sniffed =
  | { kind: "audio"; container: AudioContainer }
  | { kind: "other_media"; format: string }
  | { kind: "not_media" };

export type AudioContainer = "mp3" | "wav" | "isobmff" | "ogg" | "flac" | "adts" | "ebml";

/**
 * How much of a file to read. Two MPEG audio frames are at most ~3.5 KB and two ADTS
 * frames of stereo AAC ~3 KB, so 8 KiB always holds the second frame's header.
 */
export const SNIFF_BYTES = 8 * 1024;

/** ISO BMFF major brands of still images and image sequences (HEIC photos, AVIF). */
const IMAGE_BRANDS = new Set([
  "heic",
  "heix",
  "heim",
  "heis",
  "hevc",
  "hevx",
  "mif1",
  "msf1",
  "avif",
  "avis",
  "crx ",
]);

/** Containers outside the Note Service's list, by magic bytes (offset 0). */
const OTHER_MEDIA: readonly { format: string; test: (head: Uint8Array) => boolean }[] = [
  { format: "AIFF", test: (h) => ascii(h, 0, 4) === "FORM" && /^AIF[FC]$/.test(ascii(h, 8, 4)) },
  { format: "AVI", test: (h) => ascii(h, 0, 4) === "RIFF" && ascii(h, 8, 4) === "AVI " },
  { format: "Windows Media", test: (h) => hex(h, 0, 8) === "3026b2758e66cf11" },
  { format: "CAF", test: (h) => ascii(h, 0, 4) === "caff" && h[4] === 0 && h[5] === 1 },
  { format: "FLV", test: (h) => ascii(h, 0, 3) === "FLV" && h[3] === 1 },
  { format: "AU", test: (h) => ascii(h, 0, 4) === ".snd" },
  { format: "MPEG program stream", test: (h) => hex(h, 0, 4) === "000001ba" },
  // A transport stream is 188-byte packets, each starting 0x47: three in a row.
  { format: "MPEG transport stream", test: (h) => [0, 188, 376].every((at) => h[at] === 0x47) },
];

/** Says what the first bytes of a file are (see `Sniffed`). */
export function sniffContainer(head: Uint8Array): Sniffed {
  const container = audioContainerOf(head);
  if (container !== undefined) return { kind: "audio", container };
  const other = OTHER_MEDIA.find((entry) => entry.test(head));
  return other === undefined
    ? { kind: "not_media" }
    : { kind: "other_media", format: other.format };
}

function audioContainerOf(head: Uint8Array): AudioContainer | undefined {
  if (isId3Tag(head)) return "mp3";
  if (/^(RIFF|RIFX|RF64)$/.test(ascii(head, 0, 4)) && ascii(head, 8, 4) === "WAVE") return "wav";
  if (isMediaFtyp(head)) return "isobmff";
  if (ascii(head, 0, 4) === "OggS" && head[4] === 0) return "ogg";
  // STREAMINFO is always the first metadata block.
  if (ascii(head, 0, 4) === "fLaC" && head.length >= 8 && ((head[4] ?? 0xff) & 0x7f) === 0) {
    return "flac";
  }
  if (hex(head, 0, 4) === "1a45dfa3") return "ebml";
  if (twoFramesInARow(head, mpegFrameLength)) return "mp3";
  if (twoFramesInARow(head, adtsFrameLength)) return "adts";
  return undefined;
}

/** An ID3v2 header: "ID3", version 2–4, no unknown flags, a 28-bit "syncsafe" size. */
function isId3Tag(h: Uint8Array): boolean {
  if (h.length < 10 || ascii(h, 0, 3) !== "ID3") return false;
  const version = h[3] ?? 0;
  const flags = h[5] ?? 0xff;
  const sizeBytes = [h[6], h[7], h[8], h[9]];
  return (
    version >= 2 &&
    version <= 4 &&
    (flags & 0x0f) === 0 &&
    sizeBytes.every((b) => (b ?? 0x80) < 0x80)
  );
}

/** An ISO BMFF file type box first, naming a brand that is not a still image. */
function isMediaFtyp(h: Uint8Array): boolean {
  if (h.length < 16 || ascii(h, 4, 4) !== "ftyp") return false;
  const size = readUint32(h, 0);
  // major brand + minor version + whole compatible brands.
  if (size < 16 || (size - 16) % 4 !== 0) return false;
  const brand = ascii(h, 8, 4);
  return /^[\x20-\x7e]{4}$/.test(brand) && !IMAGE_BRANDS.has(brand);
}

/**
 * A frame header at 0 and another one right where the first frame ends: one header alone
 * could be chance (a UTF-16 text starts FF FE, which reads as an MPEG header).
 */
function twoFramesInARow(h: Uint8Array, frameLength: (h: Uint8Array, at: number) => number) {
  const first = frameLength(h, 0);
  return first > 0 && frameLength(h, first) > 0;
}

const MPEG_BITRATES_KBPS: Record<string, readonly number[]> = {
  // [MPEG-1 | MPEG-2/2.5] + layer I/II/III; index 0 ("free") and 15 (bad) are refused.
  "1-1": [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  "1-2": [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  "1-3": [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  "2-1": [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  "2-2": [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  "2-3": [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const MPEG_SAMPLE_RATES = [44100, 48000, 32000];

/** Length of the MPEG audio frame whose header is at `at`, or 0 when there is none. */
function mpegFrameLength(h: Uint8Array, at: number): number {
  if (at + 4 > h.length || h[at] !== 0xff) return 0;
  const b1 = h[at + 1] ?? 0;
  const b2 = h[at + 2] ?? 0;
  const version = (b1 >> 3) & 3; // 0: MPEG-2.5, 1: reserved, 2: MPEG-2, 3: MPEG-1
  const layer = 4 - ((b1 >> 1) & 3); // 4 means reserved (bits 00: that is ADTS)
  if ((b1 & 0xe0) !== 0xe0 || version === 1 || layer === 4) return 0;
  const bitrate = MPEG_BITRATES_KBPS[`${version === 3 ? 1 : 2}-${layer}`]?.[b2 >> 4] ?? 0;
  const baseRate = MPEG_SAMPLE_RATES[(b2 >> 2) & 3];
  if (bitrate === 0 || baseRate === undefined) return 0;
  const sampleRate = baseRate / (version === 3 ? 1 : version === 2 ? 2 : 4);
  const padding = (b2 >> 1) & 1;
  if (layer === 1) return (Math.floor((12 * bitrate * 1000) / sampleRate) + padding) * 4;
  const samples = layer === 3 && version !== 3 ? 72 : 144;
  return Math.floor((samples * bitrate * 1000) / sampleRate) + padding;
}

/** Length of the ADTS frame whose header is at `at`, or 0 when there is none. */
function adtsFrameLength(h: Uint8Array, at: number): number {
  if (at + 7 > h.length || h[at] !== 0xff) return 0;
  const b1 = h[at + 1] ?? 0;
  const b2 = h[at + 2] ?? 0;
  // 12 sync bits, then the MPEG version bit, then layer bits that are always 00.
  if ((b1 & 0xf6) !== 0xf0 || ((b2 >> 2) & 0x0f) > 12) return 0;
  const length = (((h[at + 3] ?? 0) & 3) << 11) | ((h[at + 4] ?? 0) << 3) | ((h[at + 5] ?? 0) >> 5);
  const headerLength = b1 & 1 ? 7 : 9;
  return length > headerLength ? length : 0;
}

function ascii(h: Uint8Array, at: number, length: number): string {
  if (at + length > h.length) return "";
  return String.fromCharCode(...h.subarray(at, at + length));
}

function hex(h: Uint8Array, at: number, length: number): string {
  if (at + length > h.length) return "";
  return Buffer.from(h.subarray(at, at + length)).toString("hex");
}

function readUint32(h: Uint8Array, at: number): number {
  return new DataView(h.buffer, h.byteOffset + at, 4).getUint32(0);
}
