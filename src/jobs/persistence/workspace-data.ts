import type { Logger } from "pino";
import { NAMESPACES, type Namespace, type Store } from "../../store/index.ts";

const teamSet = (teamId: string) => `team:${teamId}`;

/**
 * Every team or enterprise id data was noted under: a Slack Connect
 * channel's events carry the hosting team's id, not the install's.
 */
const TEAMS = "teams";

export interface WorkspaceKeys {
  jobIds: string[];
  values: { ns: Namespace; key: string }[];
  indexes: string[];
}

/**
 * Every key a workspace's data lives under, noted when first written, so an uninstall can delete it
 * all. Claims and leases hold no personal data and expire: not noted.
 */
export class WorkspaceData {
  readonly #store: Store;
  readonly #logger: Logger;

  constructor(store: Store, logger: Logger) {
    this.#store = store;
    this.#logger = logger;
  }

  note(teamId: string, ns: Namespace, key: string): Promise<void> {
    return this.#note(teamId, `${ns}:${key}`);
  }

  noteIndex(teamId: string, index: string): Promise<void> {
    return this.#note(teamId, `index:${index}`);
  }

  teamIds(): Promise<string[]> {
    return this.#store.listMembers(TEAMS);
  }

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

  /** Jobs go through the job layer. */
  async deleteListed(teamId: string, keys: WorkspaceKeys): Promise<void> {
    for (const { ns, key } of keys.values) await this.#store.delete(ns, key);
    for (const index of keys.indexes) await this.#store.deleteIndex(index);
    await this.#store.deleteSet(teamSet(teamId));
    // Last: should this stop halfway, the team is still listed and a retry finds the rest.
    await this.#store.removeMember(TEAMS, teamId);
  }

  async #note(teamId: string, member: string): Promise<void> {
    // The team first: a crash between the writes never hides noted data from an uninstall.
    await this.#store.addMember(TEAMS, teamId);
    await this.#store.addMember(teamSet(teamId), member);
  }
}
