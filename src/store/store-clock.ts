/** The host's clocks; tests pass a wall clock that jumps. */
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
 * A store's clock: the wall clock read once at open, then advanced by the monotonic clock,
 * so a wall-clock jump moves no due time or lease. It may be moved forward (`advanceTo`) or
 * set to a shared reference (`sync`: Redis's clock).
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

  get offset(): number {
    return this.#offset;
  }

  get synced(): boolean {
    return this.#synced;
  }

  /** Moves the clock forward to `time` when it reads earlier; never back. */
  advanceTo(time: number): void {
    const now = this.now();
    if (time > now) this.#offset += time - now;
  }

  /**
   * Sets the clock to a reference read between `sentAt` and `receivedAt` (taken as halfway);
   * within that uncertainty it stays put, so it does not wobble. Returns how far it moved.
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

  mono(): number {
    return this.#mono();
  }
}
