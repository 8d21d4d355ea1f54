import type { Store } from "../../store/index.ts";
import type { WorkspaceData } from "./workspace-data.ts";

/**
 * How long a modal's memory lives. A modal stays open as long as the person leaves it, and
 * Slack may deliver a submission again; half a day covers both.
 */
export const MODAL_MEMORY_MS = 12 * 60 * 60_000;

const memoKey = (key: string) => `modal:${key}`;
const claimKey = (key: string) => `modal-claim:${key}`;

/**
 * What a modal needs kept between Slack's requests, in the store (so every replica sees
 * it): the answer given to a submission, so that a second delivery of the same submission
 * answers as the first did and starts nothing; and what a person typed on the other pages
 * of a modal too long for one view. Values are noted under the workspace, so an uninstall
 * forgets them; they expire on their own after {@link MODAL_MEMORY_MS}.
 */
export class ModalMemory {
  readonly #store: Store;
  readonly #workspaces: WorkspaceData;

  constructor(store: Store, workspaces: WorkspaceData) {
    this.#store = store;
    this.#workspaces = workspaces;
  }

  /** True for the first caller only, on any replica, while the claim lives. */
  claim(key: string): Promise<boolean> {
    return this.#store.claim(claimKey(key), MODAL_MEMORY_MS);
  }

  /** Keeps `value` for the modal of `teamId` (a JSON value). */
  async keep(teamId: string, key: string, value: unknown): Promise<void> {
    // Noted first: a crash between the writes leaves a note of nothing, never an unnoted
    // value an uninstall would miss.
    await this.#workspaces.note(teamId, "meta", memoKey(key));
    await this.#store.set("meta", memoKey(key), value, MODAL_MEMORY_MS);
  }

  /** What was kept under `key`; undefined once it expired or was never kept. */
  read(key: string): Promise<unknown> {
    return this.#store.get<unknown>("meta", memoKey(key));
  }

  forget(key: string): Promise<void> {
    return this.#store.delete("meta", memoKey(key));
  }
}
