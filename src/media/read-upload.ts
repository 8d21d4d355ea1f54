import { resolve } from "node:path";
import { MAX_FRAME_PIXELS } from "../recordings/index.ts";

/** The largest block FFmpeg may allocate (`-max_alloc`): no meeting needs more. */
export const MAX_ALLOC_BYTES = 64 * 1024 * 1024;

/** The most memory an FFmpeg process may map (RLIMIT_AS): its ~290 MB start, and room to work. */
export const ADDRESS_SPACE_BYTES = 768 * 1024 * 1024;

/**
 * The options before an upload's input. It is hostile bytes, so FFmpeg reads that one file
 * with the one demuxer it was sniffed as (never a playlist, concat or lavfi), the `file`
 * protocol only, one thread, and bounded memory and frame size.
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
