import type { Logger } from "pino";
import { NAMESPACES, type Namespace, type Store } from "../store/index.ts";

/** The set that lists what one workspace left in the store. */
const teamSet = (teamId: string) => `team:${teamId}`;

/** What a workspace's data is made of, as its set lists it. */
export interface WorkspaceKeys {
  jobIds: string[];
  /** Other values, by namespace and key. */
  values: { ns: Namespace; key: string }[];
  indexes: string[];
}

/**
 * Knows every key a workspace's data lives under, so that an uninstall can delete it all:
 * each value, index and job is noted in a set per workspace when it is first written.
 * Claims and leases are not noted: they hold no personal data and expire on their own.
 */
export class WorkspaceData {
  readonly #store: Store;
  readonly #logger: Logger;

  constructor(store: Store, logger: Logger) {
    this.#store = store;
    this.#logger = logger;
  }

  /** Notes a value of the workspace (`jobs`, `settings`, `templates`, `meta`). */
  note(teamId: string, ns: Namespace, key: string): Promise<void> {
    return this.#store.addMember(teamSet(teamId), `${ns}:${key}`);
  }

  /** Notes an index (channel or user job list) of the workspace. */
  noteIndex(teamId: string, index: string): Promise<void> {
    return this.#store.addMember(teamSet(teamId), `index:${index}`);
  }

  /** Everything noted for the workspace. */
  async keysOf(teamId: string): Promise<WorkspaceKeys> {
    const keys: WorkspaceKeys = { jobIds: [], values: [], indexes: [] };
    for (const member of await this.#store.listMembers(teamSet(teamId))) {
      const colon = member.indexOf(":");
      const kind = member.slice(0, colon);
      const key = member.slice(colon + 1);
      if (kind === "jobs") keys.jobIds.push(key);
      else if (kind === "index") keys.indexes.push(key);
      else if ((NAMESPACES as readonly string[]).includes(kind)) {
        keys.values.push({ ns: kind as Namespace, key });
      } else this.#logger.warn({ teamId, member }, "unknown workspace key");
    }
    return keys;
  }

  /** Deletes the values and indexes listed (jobs go through the job layer), then the list. */
  async deleteListed(teamId: string, keys: WorkspaceKeys): Promise<void> {
    for (const { ns, key } of keys.values) await this.#store.delete(ns, key);
    for (const index of keys.indexes) await this.#store.deleteIndex(index);
    await this.#store.deleteSet(teamSet(teamId));
  }
}
