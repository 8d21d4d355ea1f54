const NO_ROOM = new Set(["ENOSPC", "EDQUOT"]);

/** Searches the cause chain: a full disk waits rather than fails, as freeing space fixes it. */
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

/** Whether the temp folder's disk was last found full, for readiness and metrics. */
export class DiskFullWatch {
  readonly #now: () => number;
  #since: number | undefined;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** The first time counts. */
  markFull(): void {
    this.#since ??= this.#now();
  }

  markWritten(): void {
    this.#since = undefined;
  }

  get fullSince(): number | undefined {
    return this.#since;
  }
}
