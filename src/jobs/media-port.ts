/**
 * What the job layer needs to prepare a recording the Note Service would refuse as it is
 * (`src/media` implements it with FFmpeg). Absent from the step context when FFmpeg is not
 * installed: such recordings are then refused as before.
 */
export interface MediaPort {
  /** The largest recording downloaded to be prepared (Slack's own file limit). */
  readonly maxSourceBytes: number;
  /**
   * Extracts the speech of `input` into `output` (Ogg Opus), once an FFmpeg slot is free,
   * reading `input` with the one demuxer its bytes were sniffed as. Aborting `signal` stops
   * FFmpeg at once; it rejects with the signal's reason.
   */
  prepare(o: {
    input: string;
    demuxer: string;
    output: string;
    signal: AbortSignal;
    onProgress: (fraction: number) => void;
  }): Promise<PrepareOutcome>;
}

/**
 * How a preparation ended: done, or refused for what the file is (no sound, longer than
 * the limit in hours, frames no meeting has, unreadable, far slower to read than its
 * length allows), or stopped at the admin's time limit (in minutes), which Retry may beat.
 */
export type PrepareOutcome =
  | { ok: true }
  | {
      ok: false;
      reason: "no_sound" | "frame_too_large" | "prepare_failed" | "prepare_too_slow";
    }
  | { ok: false; reason: "too_long"; detail: string }
  | { ok: false; reason: "timeout"; minutes: number };
