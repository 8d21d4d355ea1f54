import { isStoreUnavailable, StoreUnavailableError } from "../../jobs/index.ts";
import { type EncryptedInstallationStore, InstallationUnreadable } from "./installation-store.ts";

/** What this deployment holds of an install: its record, and the bot user it names. */
export interface InstallFound {
  /** Undefined when the record names no bot or cannot be decrypted (another key). */
  botUserId: string | undefined;
}

/**
 * What forgetting an install needs of its record (installs by OAuth): whether this
 * deployment has it, who its bot is, and deleting it. A store that fails is a
 * `StoreUnavailableError`, as it is to the job layer: the removal is then kept for the
 * request journal's replay like any other request the store could not take.
 */
export interface InstallRecords {
  /** The install's record; undefined when there is none (never installed here, or forgotten). */
  find(install: string): Promise<InstallFound | undefined>;
  /** Deletes the record and whatever this process keeps of it (its token). */
  delete(install: string): Promise<void>;
}

/** {@link InstallRecords} over the encrypted installations and the token cache. */
export function installRecords(
  installs: Pick<EncryptedInstallationStore, "read" | "deleteInstallation">,
  forgetToken: (install: string) => void,
): InstallRecords {
  return {
    async find(install) {
      try {
        const record = await installs.read(install);
        return record === undefined ? undefined : { botUserId: record.installation.bot?.userId };
      } catch (error) {
        // Stored, but not readable with this key: the install is ours, its bot unknown.
        if (error instanceof InstallationUnreadable) return { botUserId: undefined };
        throw storeFailed(error);
      }
    },
    async delete(install) {
      forgetToken(install);
      await installs.deleteInstallation(install).catch((error: unknown) => {
        throw storeFailed(error);
      });
    },
  };
}

function storeFailed(error: unknown): StoreUnavailableError {
  return isStoreUnavailable(error) ? error : new StoreUnavailableError(error);
}
