/** The errors of a write that found no room: a full disk, or the user's quota spent. */
const NO_ROOM = new Set(["ENOSPC", "EDQUOT"]);

/**
 * Whether an error (or one it was caused by, however deep) is a write that found the disk
 * full: trying again helps once someone frees space, so the job waits rather than fails.
 */
export function isDiskFull(error: unknown): boolean {
  const seen = new Set<unknown>();
  for (let at = error; typeof at === "object" && at !== null && !seen.has(at); ) {
    seen.add(at);
    const code = (at as { code?: unknown }).code;
    if (typeof code === "string" && NO_ROOM.has(code)) return true;
    at = (at as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * What the bot last found of the temp folder's disk: full since a time (a write found no
 * room), or not known to be full (nothing failed, or a write has gone through since).
 * Readiness and metrics read it; the download records it.
 */
export class DiskFullWatch {
  readonly #now: () => number;
  #since: number | undefined;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** A write to the temp folder found the disk full (the first time counts). */
  markFull(): void {
    this.#since ??= this.#now();
  }

  /** A write to the temp folder went through whole: there is room again. */
  markWritten(): void {
    this.#since = undefined;
  }

  /** When the disk was first found full, while it is; undefined otherwise. */
  get fullSince(): number | undefined {
    return this.#since;
  }
}
