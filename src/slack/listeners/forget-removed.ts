import { randomUUID } from "node:crypto";
import { isStoreUnavailable, SINGLE_INSTALL } from "../../jobs/index.ts";
import type { InstallRecords } from "../installs/install-records.ts";
import type { ListenerDeps } from "./deps.ts";
import type { KeptForget } from "./pending-starts.ts";

/** An install, or workspaces of one. */
export type Removal = Omit<KeptForget, "kind" | "id" | "at">;

/**
 * The install's record is checked first and deleted last, so a replay after a store failure
 * halfway still finds the install its own. False when it named nothing of this deployment.
 * @throws StoreUnavailableError while the store fails.
 */
export async function carryOutRemoval(
  deps: Pick<ListenerDeps, "installs" | "installRecords" | "logger">,
  removal: Removal,
): Promise<boolean> {
  const install = removal.install ?? SINGLE_INSTALL;
  const records = install === SINGLE_INSTALL ? undefined : deps.installRecords;
  if (records !== undefined && !(await isOurs(records, install, removal))) {
    deps.logger.info(
      { install, teamIds: removal.teamIds },
      "a removal names no install of this deployment: nothing done",
    );
    return false;
  }
  const scope = removal.scope ?? "install";
  await deps.installs.forget(removal.teamIds, removal.install, scope);
  if (records !== undefined && scope === "install") await records.delete(install);
  return true;
}

async function isOurs(records: InstallRecords, install: string, removal: Removal) {
  const found = await records.find(install);
  if (found === undefined) return false;
  const bots = removal.botUserIds;
  return bots === undefined || (found.botUserId !== undefined && bots.includes(found.botUserId));
}

/**
 * Carried out now, or, the store failing, kept whole in the request journal for its replay.
 * @throws the store's error when even the journal could not keep it.
 */
export async function forgetRemoved(deps: ListenerDeps, removal: Removal): Promise<void> {
  try {
    await carryOutRemoval(deps, removal);
  } catch (error) {
    if (!isStoreUnavailable(error)) throw error;
    const kept: KeptForget = { kind: "forget", id: randomUUID(), at: deps.now(), ...removal };
    if (!(await deps.pending.keep(kept))) throw error;
    deps.logger.warn({ err: error, teamIds: removal.teamIds }, "store failed: the removal is kept");
  }
}

/** `tokens_revoked` then `app_uninstalled`: one entry, asking about bots only while both did. */
export function mergeRemovals(kept: KeptForget, again: KeptForget): KeptForget {
  if (kept.botUserIds === undefined) return kept;
  if (again.botUserIds === undefined) {
    const { botUserIds: _bots, ...unconditional } = kept;
    return unconditional;
  }
  return { ...kept, botUserIds: [...new Set([...kept.botUserIds, ...again.botUserIds])] };
}
