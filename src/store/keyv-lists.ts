import type Keyv from "keyv";
import type { KeyedMutex } from "../util/keyed-mutex.ts";
import { INDEX_LIMIT, type StoreKeys } from "./store.ts";

/**
 * The sets and bounded indexes of a one-process store: one JSON array per key, rewritten
 * under the mutex on each change (a job adds and removes itself once), never scanned for.
 */
export class JsonLists {
  readonly #keyv: Keyv;
  readonly #mutex: KeyedMutex;
  readonly #keys: StoreKeys;

  constructor(keyv: Keyv, mutex: KeyedMutex, keys: StoreKeys) {
    this.#keyv = keyv;
    this.#mutex = mutex;
    this.#keys = keys;
  }

  addMember(set: string, member: string): Promise<void> {
    return this.#update(this.#keys.set(set), (members) =>
      members.includes(member) ? undefined : [...members, member],
    );
  }

  listMembers(set: string): Promise<string[]> {
    return this.#read(this.#keys.set(set));
  }

  removeMember(set: string, member: string): Promise<void> {
    return this.#update(this.#keys.set(set), (members) =>
      members.includes(member) ? members.filter((m) => m !== member) : undefined,
    );
  }

  deleteSet(set: string): Promise<void> {
    return this.#update(this.#keys.set(set), () => []);
  }

  pushIndex(index: string, jobId: string): Promise<void> {
    return this.#update(this.#keys.index(index), (ids) =>
      ids[0] === jobId
        ? undefined
        : [jobId, ...ids.filter((id) => id !== jobId)].slice(0, INDEX_LIMIT),
    );
  }

  listIndex(index: string): Promise<string[]> {
    return this.#read(this.#keys.index(index));
  }

  deleteIndex(index: string): Promise<void> {
    return this.#update(this.#keys.index(index), () => []);
  }

  async #read(fullKey: string): Promise<string[]> {
    return (await this.#keyv.get<string[]>(fullKey)) ?? [];
  }

  /** `change` → undefined: nothing to write. */
  #update(fullKey: string, change: (ids: string[]) => string[] | undefined): Promise<void> {
    return this.#mutex.run(fullKey, async () => {
      const next = change(await this.#read(fullKey));
      if (next === undefined) return;
      if (next.length === 0) await this.#keyv.delete(fullKey);
      else await this.#keyv.set(fullKey, next);
    });
  }
}
