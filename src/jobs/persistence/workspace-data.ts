import type { Logger } from "pino";
import { NAMESPACES, type Namespace, type Store } from "../../store/index.ts";

/** The set that lists what one workspace left in the store. */
const teamSet = (teamId: string) => `team:${teamId}`;

/**
 * The set of sets: every id (team, or enterprise) that data was noted under. One install's
 * data is filed under several: a Slack Connect channel's events carry the team id of the
 * workspace that hosts the channel, not the install's own.
 */
const TEAMS = "teams";

/** What a workspace's data is made of, as its set lists it. */
export interface WorkspaceKeys {
  jobIds: string[];
  /** Other values, by namespace and key. */
  values: { ns: Namespace; key: string }[];
  indexes: string[];
}

/**
 * Knows every key a workspace's data lives under, so that an uninstall can delete it all:
 * each value, index and job is noted in a set per workspace when it is first written, and
 * each workspace in the set of all of them ({@link WorkspaceData.teamIds}).
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
    return this.#note(teamId, `${ns}:${key}`);
  }

  /** Notes an index (channel or user job list) of the workspace. */
  noteIndex(teamId: string, index: string): Promise<void> {
    return this.#note(teamId, `index:${index}`);
  }

  /** Every team (or enterprise) id some data was noted under and not yet deleted. */
  teamIds(): Promise<string[]> {
    return this.#store.listMembers(TEAMS);
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
    // Last: should this stop halfway, the team is still listed and a retry finds the rest.
    await this.#store.removeMember(TEAMS, teamId);
  }

  async #note(teamId: string, member: string): Promise<void> {
    // The team first: a crash between the two writes leaves a listed team with nothing
    // noted, never noted data under a team no uninstall would look for.
    await this.#store.addMember(TEAMS, teamId);
    await this.#store.addMember(teamSet(teamId), member);
  }
}
