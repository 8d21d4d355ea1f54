/**
 * The sizes a recording may have. The Note Service takes 300 MB, read as binary megabytes
 * (314,572,800 bytes) — the larger reading of its limit.
 */
export const MAX_AUDIO_BYTES = 300 * 1024 * 1024;

/** Slack's own file limit (1 GB): nothing larger can be shared, so nothing larger is taken. */
export const MAX_SOURCE_BYTES = 1024 * 1024 * 1024;

/** The longest recording taken (MAX_RECORDING_HOURS): a working day of meetings. */
export const DEFAULT_MAX_RECORDING_HOURS = 8;

/**
 * The largest video frame a recording may declare: 8K UHD (7680 × 4320). A meeting, even
 * a screen recording on the largest display, is no larger; a frame of 16384 × 16000 in a
 * few hundred bytes of PNG is a memory bomb, not a meeting.
 */
export const MAX_FRAME_PIXELS = 7680 * 4320;
