import type { Store } from "../../store/index.ts";
import type { WorkspaceData } from "./workspace-data.ts";

/** A modal stays open as long as the person leaves it, and Slack may redeliver a submission. */
export const MODAL_MEMORY_MS = 12 * 60 * 60_000;

const memoKey = (key: string) => `modal:${key}`;
const claimKey = (key: string) => `modal-claim:${key}`;

/**
 * What a modal keeps between requests, for every replica: the answer to a submission (a redelivery
 * answers alike and starts nothing) and what was typed on a long modal's other pages.
 */
export class ModalMemory {
  readonly #store: Store;
  readonly #workspaces: WorkspaceData;

  constructor(store: Store, workspaces: WorkspaceData) {
    this.#store = store;
    this.#workspaces = workspaces;
  }

  claim(key: string): Promise<boolean> {
    return this.#store.claim(claimKey(key), MODAL_MEMORY_MS);
  }

  async keep(teamId: string, key: string, value: unknown): Promise<void> {
    // Noted first: a crash between the writes never leaves a value an uninstall would miss.
    await this.#workspaces.note(teamId, "meta", memoKey(key));
    await this.#store.set("meta", memoKey(key), value, MODAL_MEMORY_MS);
  }

  read(key: string): Promise<unknown> {
    return this.#store.get<unknown>("meta", memoKey(key));
  }

  forget(key: string): Promise<void> {
    return this.#store.delete("meta", memoKey(key));
  }
}
