/**
 * One paged listing of a conversation's members shared by the checks waiting on it; each hears
 * `true` as soon as its person shows up. Once over it takes no one new: a later check lists afresh.
 */
export class MemberWalk {
  readonly #seen = new Set<string>();
  readonly #waiting = new Map<string, ((member: boolean | undefined) => void)[]>();
  readonly #onOver: () => void;
  #over = false;

  constructor(onOver: () => void) {
    this.#onOver = onOver;
  }

  get over(): boolean {
    return this.#over;
  }

  ask(userId: string): Promise<boolean | undefined> {
    if (this.#seen.has(userId)) return Promise.resolve(true);
    return new Promise((resolve) => {
      this.#waiting.set(userId, [...(this.#waiting.get(userId) ?? []), resolve]);
    });
  }

  /** Reads one page; true when no check is left waiting. */
  take(members: readonly string[]): boolean {
    for (const id of members) {
      this.#seen.add(id);
      for (const resolve of this.#waiting.get(id) ?? []) resolve(true);
      this.#waiting.delete(id);
    }
    return this.#waiting.size === 0;
  }

  /** Over: every check still waiting hears `member` (false: not in the list read whole). */
  end(member: false | undefined): void {
    if (this.#over) return;
    this.#over = true;
    this.#onOver();
    for (const waiting of this.#waiting.values()) for (const resolve of waiting) resolve(member);
    this.#waiting.clear();
  }
}
