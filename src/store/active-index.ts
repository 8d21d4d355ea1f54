/** The active-job index of a one-process store: id → stage, counted per stage. Synchronous. */
export interface ActiveIndex {
  /** Puts the id in the index under `stage` ("" for an id of unknown stage), or moves it. */
  set(id: string, stage: string): void;
  delete(id: string): void;
  ids(): string[];
  stageOf(id: string): string | undefined;
  /** How many ids each known stage holds. */
  counts(): Record<string, number>;
}

/** In a Map, with a counter per stage: a count costs O(stages). */
export class MapActiveIndex implements ActiveIndex {
  readonly #stages = new Map<string, string>();
  readonly #counts = new Map<string, number>();

  set(id: string, stage: string): void {
    const before = this.#stages.get(id);
    if (before === stage) return;
    if (before !== undefined) this.#add(before, -1);
    this.#stages.set(id, stage);
    this.#add(stage, 1);
  }

  delete(id: string): void {
    const before = this.#stages.get(id);
    if (before === undefined) return;
    this.#stages.delete(id);
    this.#add(before, -1);
  }

  ids(): string[] {
    return [...this.#stages.keys()];
  }

  stageOf(id: string): string | undefined {
    return this.#stages.get(id);
  }

  counts(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const [stage, count] of this.#counts) if (stage !== "" && count > 0) counts[stage] = count;
    return counts;
  }

  #add(stage: string, delta: number): void {
    this.#counts.set(stage, (this.#counts.get(stage) ?? 0) + delta);
  }
}
