/** The Note Service takes 300 MB, read as binary megabytes: the larger reading. */
export const MAX_AUDIO_BYTES = 300 * 1024 * 1024;

/** Slack's own file limit (1 GB): nothing larger can be shared, so nothing larger is taken. */
export const MAX_SOURCE_BYTES = 1024 * 1024 * 1024;

/** The longest recording taken (MAX_RECORDING_HOURS): a working day of meetings. */
export const DEFAULT_MAX_RECORDING_HOURS = 8;

/** 8K UHD: no meeting's frame is larger; a huge frame in a tiny file is a memory bomb. */
export const MAX_FRAME_PIXELS = 7680 * 4320;
