import { isStoreUnavailable, StoreUnavailableError } from "../../jobs/index.ts";
import { type EncryptedInstallationStore, InstallationUnreadable } from "./installation-store.ts";

/**
 * What forgetting an install needs of its record; store failures are `StoreUnavailableError`, so
 * the journal keeps the removal.
 */
export interface InstallRecords {
  /** `botUserId` undefined: the record names no bot or cannot be decrypted (another key). */
  find(install: string): Promise<{ botUserId: string | undefined } | undefined>;
  delete(install: string): Promise<void>;
}

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
