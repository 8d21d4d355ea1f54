/** Slack's own file limit (1 GB): nothing larger can be shared, so nothing larger is taken. */
export const MAX_SOURCE_BYTES = 1024 * 1024 * 1024;

/**
 * What the job layer needs to prepare a recording the Note Service would refuse as it is
 * (`src/media` implements it with FFmpeg). Absent from the step context when FFmpeg is not
 * installed: such recordings are then refused as before.
 */
export interface MediaPort {
  /** The largest recording downloaded to be prepared (Slack's own file limit). */
  readonly maxSourceBytes: number;
  /**
   * Extracts the speech of `input` into `output` (Ogg Opus), once an FFmpeg slot is free.
   * Aborting `signal` stops FFmpeg at once; it rejects with the signal's reason.
   */
  prepare(o: {
    input: string;
    output: string;
    signal: AbortSignal;
    onProgress: (fraction: number) => void;
  }): Promise<PrepareOutcome>;
}

/**
 * How a preparation ended: done, or why not — no audio stream in the file, a file FFmpeg
 * cannot read, or the time limit (in minutes) passed.
 */
export type PrepareOutcome =
  | { ok: true }
  | { ok: false; reason: "no_sound" | "unreadable" }
  | { ok: false; reason: "timeout"; minutes: number };
