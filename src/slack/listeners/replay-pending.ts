import type { Logger } from "pino";
import {
  installOf,
  isStoreUnavailable,
  JournalReplay,
  type ReplayOutcome,
  RequestJournal,
  SINGLE_INSTALL,
} from "../../jobs/index.ts";
import type { Backoff } from "../../util/backoff.ts";
import { optional } from "../../util/optional.ts";
import { runAsInstall } from "../installs/request-tenant.ts";
import { attemptOf, type ListenerDeps, orWhenStoreDown } from "./deps.ts";
import { takeKeptUpload, tellKeptUploadWaits } from "./events/start-recordings.ts";
import { carryOutRemoval, mergeRemovals } from "./forget-removed.ts";
import {
  type KeptForget,
  type KeptThreadStart,
  type PendingStart,
  pendingStartSchema,
} from "./pending-starts.ts";

/** Before a kept upload's thread hears that it waits for the store. */
export const TELL_WAITING_AFTER_MS = 30_000;

/** As its listener would have, in the thread it already opened for a `/meeting-notes` job. */
export function replayPendingStart(
  deps: ListenerDeps,
): (entry: PendingStart) => Promise<ReplayOutcome<PendingStart>> {
  return async (entry) => {
    // Outside Slack's request: run as the install that sent it, for its token and tenant keys.
    if (entry.kind === "forget") {
      return runAsInstall(entry.install ?? SINGLE_INSTALL, () => forgetKept(deps, entry));
    }
    const as = (run: () => Promise<ReplayOutcome<PendingStart>>) =>
      runAsInstall(installOf(entry.origin), run, entry.origin.teamId);
    if (entry.kind === "upload") return as(() => takeKeptUpload(deps, entry));
    return as(() => startKeptThread(deps, entry));
  };
}

async function forgetKept(
  deps: ListenerDeps,
  entry: KeptForget,
): Promise<ReplayOutcome<PendingStart>> {
  const { kind: _kind, id: _id, at: _at, ...removal } = entry;
  const done = await orWhenStoreDown(carryOutRemoval(deps, removal), undefined);
  if (done) {
    deps.logger.warn(
      { teamIds: entry.teamIds },
      "the removed workspace's data is deleted (kept request)",
    );
  }
  return { done: done !== undefined };
}

/** A redelivered event is the same upload. */
function keyOf(entry: PendingStart): string {
  if (entry.kind === "upload") return `upload:${entry.origin.channelId}:${entry.file.id}`;
  if (entry.kind === "thread") return `thread:${entry.origin.channelId}:${entry.source.fileId}`;
  const install = entry.install === undefined ? "" : `${entry.install}:`;
  const scope = entry.scope === "workspaces" ? "workspaces:" : "";
  return `forget:${install}${scope}${entry.teamIds.join(",")}`;
}

/** The first entry stays, taking the second's claim when only that one has it: the job is made. */
function merge(kept: PendingStart, again: PendingStart): PendingStart {
  if (kept.kind === "forget" && again.kind === "forget") return mergeRemovals(kept, again);
  if (kept.kind !== "upload" || again.kind !== "upload") return kept;
  if (again.attempt?.claimed !== true || kept.attempt?.claimed === true) return kept;
  return { ...kept, attempt: again.attempt };
}

async function startKeptThread(
  deps: ListenerDeps,
  entry: KeptThreadStart,
): Promise<ReplayOutcome<PendingStart>> {
  const { origin, source, options } = entry;
  try {
    await deps.jobs.start({ origin, source, options }, entry.attempt);
    return { done: true };
  } catch (error) {
    if (!isStoreUnavailable(error)) throw error;
    return {
      done: false,
      entry: { ...entry, attempt: attemptOf(error, entry.attempt) },
    };
  }
}

export interface PendingStartsOptions {
  /** Beside the store, one per deployment. */
  path: string;
  logger: Logger;
  /** While the store still fails (1 s doubling to 10 s by default). */
  backoff?: Backoff;
  tellAfterMs?: number;
}

/** `bind` gives it the listeners' deps once they exist, before anything is replayed. */
export function createPendingStarts(options: PendingStartsOptions) {
  let deps: ListenerDeps | undefined;
  const { path, logger, backoff, tellAfterMs = TELL_WAITING_AFTER_MS } = options;
  const pending = new JournalReplay({
    journal: new RequestJournal({ path, schema: pendingStartSchema, logger, keyOf, merge }),
    replay: async (entry) =>
      deps === undefined ? { done: false } : replayPendingStart(deps)(entry),
    // A `/meeting-notes` request was told so in its modal already.
    waiting: async (entry) =>
      deps !== undefined && entry.kind === "upload"
        ? tellKeptUploadWaits(deps, entry, tellAfterMs)
        : entry,
    logger,
    ...optional("backoff", backoff),
  });
  return Object.assign(pending, {
    bind(listenerDeps: ListenerDeps): void {
      deps = listenerDeps;
    },
  });
}
