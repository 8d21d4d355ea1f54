import type { Logger } from "pino";
import {
  type ChannelSettingsStore,
  type ChannelUploads,
  type Installs,
  isStoreUnavailable,
  type JobService,
  type ModalMemory,
  type ResetNotice,
  type StartAttempt,
  StartNotRecorded,
  type Templates,
} from "../../jobs/index.ts";
import type { SlackDirectory } from "../directory/slack-directory.ts";
import type { InstallRecords } from "../installs/install-records.ts";
import type { Permissions } from "../permissions.ts";
import type { Responder } from "../responder/response-url.ts";
import type { SlackResponder } from "../responder/slack-responder.ts";
import type { PendingStarts } from "./pending-starts.ts";
import type { SaidOnce } from "./said-once.ts";

/** Listeners validate, call the job service, reply — no more. */
export interface ListenerDeps {
  jobs: JobService;
  settings: ChannelSettingsStore;
  /** So mentions and the modal need no read of history. */
  uploads: ChannelUploads;
  templates: Templates;
  /** A submission's answer, other pages' input. */
  modals: ModalMemory;
  installs: Installs;
  /** Installs by OAuth only: whether an uninstall names an install and bot of this deployment. */
  installRecords?: InstallRecords;
  directory: SlackDirectory;
  responder: SlackResponder;
  permissions: Permissions;
  respond: Responder;
  logger: Logger;
  now: () => number;
  /** A person whose jobs the store lost lately. */
  storeResetNotice?: (teamId: string, userId: string) => Promise<ResetNotice | undefined>;
  /** What the store could not record after Slack's ack, to be replayed. */
  pending: PendingStarts;
  /** Uploads said lost, by channel and file. */
  saidLost: SaidOnce;
}

/** `fallback` when the store cannot answer now; any other failure is thrown. */
export async function orWhenStoreDown<T>(work: Promise<T>, fallback: T): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (!isStoreUnavailable(error)) throw error;
    return fallback;
  }
}

/** The attempt a failed start got (to make that same job again), else `known`. */
export function attemptOf<T extends StartAttempt | undefined = undefined>(
  error: unknown,
  known?: T,
): StartAttempt | T {
  return error instanceof StartNotRecorded ? error.attempt : (known as T);
}
