import {
  AUDIO_DEMUXERS,
  type AudioContainer,
  ascii,
  hex,
  OTHER_FORMATS,
  type OtherFormat,
} from "./containers.ts";

/**
 * What a file's first bytes say it is, whatever its name claims: `audio` (a container of the
 * families the Note Service takes), `other_media` (one FFmpeg prepares), or `not_media`.
 */
export type Sniffed =
  | { kind: "audio"; container: AudioContainer }
  | { kind: "other_media"; format: OtherFormat }
  | { kind: "not_media" };

/** Two MPEG audio or ADTS frames always fit in 8 KiB. */
export const SNIFF_BYTES = 8 * 1024;

export type ReadAt = (offset: number, length: number) => Promise<Uint8Array>;

/** ID3 tags in a row before the audio: one is usual, two happen; more is not a recording. */
const MAX_ID3_TAGS = 3;
/** Zero bytes tolerated between the last ID3 tag and the first frame (taggers' padding). */
const MAX_PADDING = 4 * 1024;

const NOT_MEDIA: Sniffed = { kind: "not_media" };

/**
 * Reads past ID3 tags, however large (cover art), to the frames that must follow them: a tag
 * says nothing of what comes after it.
 */
export async function sniffRecording(readAt: ReadAt): Promise<Sniffed> {
  const head = await readAt(0, SNIFF_BYTES);
  if (id3TagLength(head) === undefined) return sniffContainer(head);
  let offset = 0;
  let bytes = head;
  for (let tag = 0; tag < MAX_ID3_TAGS; tag++) {
    const length = id3TagLength(bytes);
    if (length === undefined) return framesAt(bytes);
    offset += length;
    bytes = await readAt(offset, SNIFF_BYTES + MAX_PADDING);
  }
  return id3TagLength(bytes) === undefined ? framesAt(bytes) : NOT_MEDIA;
}

/** What these bytes are as the start of a file; ID3 tags are read past only within them. */
export function sniffContainer(bytes: Uint8Array): Sniffed {
  if (id3TagLength(bytes) !== undefined) {
    let rest = bytes;
    for (let tag = 0; tag < MAX_ID3_TAGS; tag++) {
      const length = id3TagLength(rest);
      if (length === undefined) return framesAt(rest);
      rest = rest.subarray(Math.min(length, rest.length));
    }
    return id3TagLength(rest) === undefined ? framesAt(rest) : NOT_MEDIA;
  }
  const container = audioContainerOf(bytes);
  if (container !== undefined) return { kind: "audio", container };
  const other = OTHER_FORMATS.find((entry) => entry.test(bytes));
  return other === undefined ? NOT_MEDIA : { kind: "other_media", format: other.format };
}

/** The one FFmpeg demuxer that may read a file sniffed as `sniffed`; undefined for `not_media`. */
export function demuxerOf(sniffed: Sniffed): string | undefined {
  if (sniffed.kind === "audio") return AUDIO_DEMUXERS[sniffed.container];
  if (sniffed.kind === "other_media") {
    return OTHER_FORMATS.find((entry) => entry.format === sniffed.format)?.demuxer;
  }
  return undefined;
}

/** What follows ID3 tags: MPEG audio or ADTS frames, after at most a little zero padding. */
function framesAt(bytes: Uint8Array): Sniffed {
  let start = 0;
  while (start < Math.min(bytes.length, MAX_PADDING) && bytes[start] === 0) start++;
  const frames = bytes.subarray(start);
  if (twoFramesInARow(frames, mpegFrameLength)) return { kind: "audio", container: "mp3" };
  if (twoFramesInARow(frames, adtsFrameLength)) return { kind: "audio", container: "adts" };
  return NOT_MEDIA;
}

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

function audioContainerOf(head: Uint8Array): AudioContainer | undefined {
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

/** The length of the ID3v2 tag at the start of `h` (id3.org ID3v2.4.0 §3.1), if any. */
function id3TagLength(h: Uint8Array): number | undefined {
  if (h.length < 10 || ascii(h, 0, 3) !== "ID3") return undefined;
  const version = h[3] ?? 0;
  const flags = h[5] ?? 0xff;
  const sizeBytes = [h[6] ?? 0x80, h[7] ?? 0x80, h[8] ?? 0x80, h[9] ?? 0x80];
  if (version < 2 || version > 4 || (flags & 0x0f) !== 0 || sizeBytes.some((b) => b >= 0x80)) {
    return undefined;
  }
  const size = sizeBytes.reduce((total, b) => total * 128 + b, 0);
  // Flag 0x10 (v2.4): a 10-byte footer follows the tag.
  return 10 + size + (version === 4 && flags & 0x10 ? 10 : 0);
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

function readUint32(h: Uint8Array, at: number): number {
  return new DataView(h.buffer, h.byteOffset + at, 4).getUint32(0);
}
