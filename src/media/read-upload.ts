import { resolve } from "node:path";
import { MAX_FRAME_PIXELS } from "../recordings/index.ts";

/**
 * The largest single block FFmpeg may allocate (`-max_alloc`): a frame or table no
 * meeting recording needs is refused instead of allocated.
 */
export const MAX_ALLOC_BYTES = 64 * 1024 * 1024;

/**
 * The most virtual memory an FFmpeg or ffprobe process may map (RLIMIT_AS): what FFmpeg
 * maps to start (~290 MB with Debian's libraries) and room to work, measured in
 * support/bench/prepare.ts. Past it an allocation fails and FFmpeg stops with an error.
 */
export const ADDRESS_SPACE_BYTES = 768 * 1024 * 1024;

/**
 * The options before an upload's input, for ffprobe and FFmpeg alike. An upload is hostile
 * bytes, so FFmpeg reads that one file and nothing else, in bounded memory:
 *
 * - the demuxer is the one its bytes were sniffed as, named (`-f`) rather than guessed, and
 *   no other is allowed (`-format_whitelist`): never concat, HLS/DASH or other playlists,
 *   image sequences, tracker modules, `lavfi` or subtitles, which open other files or
 *   generate endless sound;
 * - only the `file` protocol (`-protocol_whitelist`), and the input given as an absolute
 *   `file:` path inside the job's own folder, so even a relative reference could only name
 *   that job's own files;
 * - one thread, no allocation over {@link MAX_ALLOC_BYTES}, and no decoded picture over
 *   `MAX_FRAME_PIXELS` (`-max_pixels`: a decoder refuses a larger frame before allocating it).
 */
export function uploadInput(path: string, demuxer: string): string[] {
  return [
    "-max_alloc",
    String(MAX_ALLOC_BYTES),
    "-threads",
    "1",
    "-max_pixels",
    String(MAX_FRAME_PIXELS),
    "-protocol_whitelist",
    "file",
    "-format_whitelist",
    demuxer,
    "-f",
    demuxer,
    "-i",
    `file:${resolve(path)}`,
  ];
}

/** FFmpeg's words when a decoder refuses a frame for its size (libavutil imgutils). */
export const OVERSIZED_FRAME = /exceeds specified max pixel count/;
