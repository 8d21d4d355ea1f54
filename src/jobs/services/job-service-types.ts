import type { Logger } from "pino";
import type { Store } from "../../store/index.ts";
import type { Admission } from "../engine/admission.ts";
import type { StageObserver } from "../engine/apply-event.ts";
import type { JobRunner } from "../engine/runner.ts";
import type { Job, Origin, SourceFile } from "../model/job.ts";
import type { ChannelSettingsStore } from "../persistence/channel-settings.ts";
import type { JobRepository } from "../persistence/job-repository.ts";
import type { WorkspaceData } from "../persistence/workspace-data.ts";
import type { StartResult } from "./start-jobs.ts";

/** An upload's outcome: also `off` in a channel that turned automatic notes off. */
export type UploadResult = StartResult | { status: "off" };

/** Why a command on a job was not carried out. */
export type CommandRefusal = "not_found" | "wrong_stage" | "cooldown";
export type CommandResult =
  | { ok: true; job: Job }
  | { ok: false; reason: CommandRefusal; retryInMs?: number };

export interface JobServiceOptions {
  repo: JobRepository;
  store: Store;
  admission: Admission;
  runner: Pick<JobRunner, "kick" | "abort" | "settle" | "discard">;
  logger: Logger;
  /** Channels' settings: an upload starts with its channel's. */
  settings: ChannelSettingsStore;
  /** What each workspace left in the store, noted as jobs start (for an uninstall). */
  workspaces: WorkspaceData;
  retentionMs: number;
  /** How long a dedupe key lives: Slack retries events for minutes; a day is safe. */
  dedupeTtlMs?: number;
  /** The shortest time between two Regenerates of one job's notes (0: none). */
  regenerateCooldownMs?: number;
  now?: () => number;
  newId?: () => string;
  /** FFmpeg is installed: recordings the Note Service would refuse as they are are prepared. */
  canPrepare?: boolean;
  /** Told of every stage change a person's command makes (metrics). */
  onStageChange?: StageObserver;
  /**
   * Whether an upload whose claim is new was started all the same — before the store lost
   * its data (and its claims with it): see `StoreResetWatch.alreadyStarted`.
   */
  alreadyStarted?: (origin: Origin, source: SourceFile) => Promise<boolean>;
}
