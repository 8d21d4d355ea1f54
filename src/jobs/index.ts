/** What other layers use of the job layer (the fleet benchmark loads it by this path). */
export {
  createJobs,
  createServices,
  type Jobs,
  type JobsOptions,
  type Services,
} from "./create-jobs.ts";
export {
  Admission,
  type AdmissionLimits,
  defaultAdmissionLimits,
  type Place,
} from "./engine/admission.ts";
export type { StageObserver } from "./engine/apply-event.ts";
export { decideFailure, JobStepError } from "./engine/failure-policy.ts";
export { DiskFullWatch, isDiskFull } from "./files/disk-full.ts";
export type { JobEvent } from "./model/events.ts";
export * from "./model/job.ts";
export * from "./model/job-parts.ts";
export { summarizeSpeakers } from "./model/speaker-summary.ts";
export {
  installOf,
  isTenantOf,
  SINGLE_INSTALL,
  tenantOf,
  tenantOfOrigin,
} from "./model/tenant.ts";
export { canTransition, IllegalTransitionError, transition } from "./model/transitions.ts";
export {
  type ChannelSettings,
  type ChannelSettingsInput,
  type ChannelSettingsStore,
  channelSettingsSchema,
  uploadOptions,
} from "./persistence/channel-settings.ts";
export type { ChannelUploads, SeenUpload } from "./persistence/channel-uploads.ts";
export { JobRepository, jobLeaseKey } from "./persistence/job-repository.ts";
export type { ModalMemory } from "./persistence/modal-memory.ts";
export { type KnownJob, RecentJobs } from "./persistence/recent-jobs.ts";
export type { TemplateScope, Templates } from "./persistence/templates.ts";
export type {
  MediaPort,
  NoteTakerPort,
  PrepareOutcome,
  StoreResetPort,
} from "./ports.ts";
export {
  type CanvasOutcome,
  type DeliveredState,
  type DownloadLimits,
  type NotePerson,
  type ReviewPort,
  type ReviewState,
  type SlackPort,
  SlackPortError,
  type StatusMode,
} from "./ports.ts";
export { JournalReplay, type ReplayOutcome } from "./recovery/journal-replay.ts";
export { RequestJournal } from "./recovery/request-journal.ts";
export {
  type ResetNotice,
  type StoreResetTimings,
  StoreResetWatch,
} from "./recovery/store-reset.ts";
export { isStoreUnavailable, StoreUnavailableError } from "./recovery/store-unavailable.ts";
export type { Installs } from "./services/installs.ts";
export type { CommandRefusal, CommandResult, JobService } from "./services/job-service.ts";
export { type StartAttempt, StartNotRecorded, type StartResult } from "./services/start-jobs.ts";
