export {
  Admission,
  type AdmissionLimits,
  defaultAdmissionLimits,
  holdsSlot,
  type Place,
} from "./admission.ts";
export {
  type ChannelSettings,
  type ChannelSettingsInput,
  channelSettingsSchema,
  readChannelSettings,
  uploadOptions,
} from "./channel-settings.ts";
export { createJobs, type Jobs, type JobsOptions } from "./create-jobs.ts";
export { DiskFullWatch, isDiskFull } from "./disk-full.ts";
export { decideFailure, defaultFailurePolicy, JobStepError } from "./failure-policy.ts";
export {
  type CanvasOutcome,
  type DeliveredState,
  type DownloadLimits,
  type Gateway,
  GatewayError,
  type NotePerson,
  type StatusMode,
} from "./gateway.ts";
export * from "./job.ts";
export { channelIndex, JobRepository, jobLeaseKey, userIndex } from "./job-repository.ts";
export {
  type CommandRefusal,
  type CommandResult,
  JobService,
  type StartAttempt,
  type StartResult,
  type UploadResult,
} from "./job-service.ts";
export {
  JournalReplay,
  type JournalReplayOptions,
  type ReplayOutcome,
} from "./journal-replay.ts";
export type { MediaPort, PrepareOutcome } from "./media-port.ts";
export type { NoteTakerPort } from "./note-taker-port.ts";
export { type KnownJob, RecentJobs } from "./recent-jobs.ts";
export { type JournalEntry, RequestJournal } from "./request-journal.ts";
export { JobRunner, type RunnerOptions, type StageObserver } from "./runner.ts";
export { summarizeSpeakers } from "./speaker-summary.ts";
export { StartNotRecorded } from "./start-jobs.ts";
export { defaultStageLimits, type StageLimits } from "./step.ts";
export {
  DEFAULT_STORE_RESET_TIMINGS,
  type ResetNotice,
  type StoreResetPort,
  type StoreResetTimings,
  StoreResetWatch,
} from "./store-reset.ts";
export {
  isStoreUnavailable,
  markStoreFailures,
  StoreUnavailableError,
} from "./store-unavailable.ts";
export type { StoredTemplate, TemplateScope } from "./templates.ts";
export { canTransition, IllegalTransitionError, type JobEvent, transition } from "./transitions.ts";
