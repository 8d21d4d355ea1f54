/**
 * The two clocks of the host: the wall clock (ms since the epoch; an operator, NTP or a VM
 * restore may set it forward or back at any time) and a monotonic one (ms from an arbitrary
 * origin; never jumps). A seam: tests pass a wall clock that jumps.
 */
export interface ClockSources {
  wall(): number;
  mono(): number;
}

/** The host's clocks, read at each call (so that fake timers installed later are seen). */
export const systemClock: ClockSources = {
  wall: () => Date.now(),
  mono: () => performance.now(),
};

/**
 * A store's clock, in ms since the epoch: every time the job layer keeps (due times, lease
 * ends, when a job started) is read from it. It reads the wall clock once, when the store
 * opens, and from then on advances with the monotonic clock only, so a wall-clock jump while
 * the process runs moves nothing: work due in a second still runs in a second, and a lease
 * renewed in time stays held. It can be moved forward (`advanceTo`: the SQLite store resumes
 * from the last time it wrote, should the wall clock read earlier after a restart) and set
 * to a shared reference (`sync`: Redis's own clock, the same for every replica).
 */
export class StoreClock {
  readonly #mono: () => number;
  /** Added to the monotonic reading: what makes it a time since the epoch. */
  #offset: number;
  #synced = false;

  constructor(sources: ClockSources = systemClock) {
    this.#mono = () => sources.mono();
    this.#offset = sources.wall() - sources.mono();
  }

  now(): number {
    return this.#offset + this.#mono();
  }

  /** What is added to the monotonic reading; how far a change of the clock moved it. */
  get offset(): number {
    return this.#offset;
  }

  /** Whether a reference reading has set it (`sync`). */
  get synced(): boolean {
    return this.#synced;
  }

  /** Moves the clock forward to `time` when it reads earlier; never back. */
  advanceTo(time: number): void {
    const now = this.now();
    if (time > now) this.#offset += time - now;
  }

  /**
   * Sets the clock to a reference clock read between `sentAt` and `receivedAt` (monotonic
   * readings around the call): the reference time is taken as read halfway. A reading
   * within that uncertainty of the current time changes nothing, so the clock does not
   * wobble with each call's round trip; one outside it (the first, or the reference was
   * set) moves it. Returns how far it moved (ms).
   */
  sync(reference: number, sentAt: number, receivedAt: number): number {
    const offset = reference - (sentAt + receivedAt) / 2;
    const moved = offset - this.#offset;
    const firstReading = !this.#synced;
    this.#synced = true;
    if (!firstReading && Math.abs(moved) <= (receivedAt - sentAt) / 2 + 1) return 0;
    this.#offset = offset;
    return moved;
  }

  /** A monotonic reading, for `sync`'s round trip. */
  mono(): number {
    return this.#mono();
  }
}
