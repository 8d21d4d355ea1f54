/**
 * The containers a recording may come in, each known by its first bytes and read by exactly
 * one FFmpeg demuxer, named and allowlisted: a playlist or an image sequence dressed up as a
 * recording is never opened as one.
 */

/** Containers of the families the Note Service takes as they are. */
export type AudioContainer = "mp3" | "wav" | "isobmff" | "ogg" | "flac" | "adts" | "ebml";

/** Audio or video containers outside those families, which FFmpeg prepares (by label). */
export type OtherFormat = (typeof OTHER_FORMATS)[number]["format"];

export const AUDIO_DEMUXERS: Readonly<Record<AudioContainer, string>> = {
  mp3: "mp3",
  wav: "wav",
  isobmff: "mov",
  ogg: "ogg",
  flac: "flac",
  adts: "aac",
  ebml: "matroska",
};

/**
 * Containers the Note Service does not take, by magic bytes: only formats a meeting is
 * plausibly recorded in, and demuxers that read nothing but their own input.
 */
export const OTHER_FORMATS = [
  {
    format: "AIFF",
    demuxer: "aiff",
    test: (h) => is(h, 0, "FORM") && /^AIF[FC]$/.test(ascii(h, 8, 4)),
  },
  { format: "AVI", demuxer: "avi", test: (h) => is(h, 0, "RIFF") && is(h, 8, "AVI ") },
  { format: "Windows Media", demuxer: "asf", test: (h) => hex(h, 0, 8) === "3026b2758e66cf11" },
  { format: "CAF", demuxer: "caf", test: (h) => is(h, 0, "caff") && h[4] === 0 && h[5] === 1 },
  { format: "FLV", demuxer: "flv", test: (h) => is(h, 0, "FLV") && h[3] === 1 },
  { format: "AU", demuxer: "au", test: (h) => is(h, 0, ".snd") },
  { format: "MPEG program stream", demuxer: "mpeg", test: (h) => hex(h, 0, 4) === "000001ba" },
  // A transport stream is 188-byte packets, each starting 0x47: three in a row.
  {
    format: "MPEG transport stream",
    demuxer: "mpegts",
    test: (h) => [0, 188, 376].every((at) => h[at] === 0x47),
  },
  // Phones' voice memos and call recordings (RFC 4867 §5: "#!AMR\n", "#!AMR-WB\n").
  { format: "AMR", demuxer: "amr", test: (h) => is(h, 0, "#!AMR\n") || is(h, 0, "#!AMR-WB\n") },
  { format: "WavPack", demuxer: "wv", test: (h) => is(h, 0, "wvpk") },
  { format: "Monkey's Audio", demuxer: "ape", test: (h) => is(h, 0, "MAC ") },
  { format: "Sony Wave64", demuxer: "w64", test: (h) => hex(h, 0, 8) === "726966662e91cf11" },
  { format: "Creative Voice", demuxer: "voc", test: (h) => is(h, 0, "Creative Voice File\x1a") },
  { format: "RealMedia", demuxer: "rm", test: (h) => is(h, 0, ".RMF") },
] as const satisfies readonly {
  format: string;
  demuxer: string;
  test: (head: Uint8Array) => boolean;
}[];

/** Every demuxer FFmpeg may use on an upload (its allowlist). */
export const MEDIA_DEMUXERS: readonly string[] = [
  ...Object.values(AUDIO_DEMUXERS),
  ...OTHER_FORMATS.map((entry) => entry.demuxer),
];

export function ascii(h: Uint8Array, at: number, length: number): string {
  if (at + length > h.length) return "";
  return String.fromCharCode(...h.subarray(at, at + length));
}

export function hex(h: Uint8Array, at: number, length: number): string {
  if (at + length > h.length) return "";
  return Buffer.from(h.subarray(at, at + length)).toString("hex");
}

function is(h: Uint8Array, at: number, text: string): boolean {
  return ascii(h, at, text.length) === text;
}
