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

export type UploadResult = StartResult | { status: "off" };

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
  settings: ChannelSettingsStore;
  /** Noted as jobs start, for an uninstall. */
  workspaces: WorkspaceData;
  retentionMs: number;
  /** Slack retries events for minutes; a day is safe. */
  dedupeTtlMs?: number;
  regenerateCooldownMs?: number;
  now?: () => number;
  newId?: () => string;
  canPrepare?: boolean;
  onStageChange?: StageObserver;
  /**
   * An upload started before the store lost its data (and its claims):
   * `StoreResetWatch.alreadyStarted`.
   */
  alreadyStarted?: (origin: Origin, source: SourceFile) => Promise<boolean>;
}
