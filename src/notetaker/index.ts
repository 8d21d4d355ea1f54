export { NoteTakerClient, type NoteTakerClientOptions, type Task } from "./client.ts";
export * from "./errors.ts";
export { checkTemplate, MAX_TEMPLATE_BYTES } from "./input-rules.ts";
export {
  API_KEY_REFUSED,
  BASE_URL_UNREACHABLE,
  BASE_URL_WRONG,
  type NoteServiceWatch,
  watchNoteService,
} from "./note-service-watch.ts";
export { createPollSchedule, type PollSchedule } from "./poll-schedule.ts";
export { normalizeProgress, type Progress, type ProgressTrail } from "./progress.ts";
export { defaultRetryPolicy, fastRetryPolicy, type RetryPolicy } from "./retry-policy.ts";
export type { AudioResult, Dialog, NoteResult, SpeakerHint } from "./schemas.ts";
export { type Segment, type SpeakerName, segmentsOf } from "./wire.ts";
