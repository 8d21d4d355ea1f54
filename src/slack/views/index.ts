export { buildAppHome, type HomeItem, type HomeNotice, MAX_HOME_JOBS } from "./app-home.ts";
export {
  buildCancelReply,
  buildChannelStatus,
  buildCommandRefusal,
  buildHelpMessage,
  buildPermissionRefusal,
  buildSettingsAnnouncement,
  buildSettingsSaved,
  buildUnknownCommand,
  type JobCommand,
  MAX_STATUS_JOBS,
  permissionSentence,
} from "./command-replies.ts";
export { endingSentence, failureSentence, stageShort } from "./job-phrases.ts";
export { AUTO_LANGUAGE } from "./language-select.ts";
export { MAX_NAME_CHARS, SLACK_LIMITS } from "./limits.ts";
export type { MessageContent, TaggedMessageContent } from "./message-content.ts";
export { cleanName } from "./name-rules.ts";
export {
  buildNewNotesModal,
  type NewNotesMetadata,
  type NewNotesModalOptions,
  newNotesIdentity,
  parseNewNotesMetadata,
} from "./new-notes-modal.ts";
export { buildNotePart, type NotePartOptions } from "./note-part.ts";
export {
  buildLoadingModal,
  buildNoticeModal,
  errorsReply,
  type ModalIdentity,
  sentenceReply,
} from "./notice-modal.ts";
export {
  type NewNotesSubmission,
  parseExtraNames,
  parseNewNotesSubmission,
} from "./parse-new-notes-submission.ts";
export {
  parseSpeakerSubmission,
  readSpeakerPage,
  type SpeakerEntry,
  type SpeakerSubmission,
} from "./parse-speaker-submission.ts";
export type { RecentRecording } from "./recent-select.ts";
export {
  buildReviewMessage,
  buildReviewReminder,
  type ReviewMessageState,
  reviewMetadata,
  reviewOutcome,
} from "./review-message.ts";
export {
  buildSettingsModal,
  CLEAR_TEMPLATE,
  parseSettingsSubmission,
  type SettingsSubmission,
} from "./settings-modal.ts";
export { type NamedSpeaker, speakerMapFor } from "./speaker-map.ts";
export {
  buildSpeakerModal,
  type Gender,
  parseSpeakerModalMetadata,
  SPEAKERS_PER_PAGE,
  type SpeakerModalOptions,
  type SpeakerPrefill,
  speakerModalIdentity,
  speakerModalMetadata,
  speakerPages,
  speakersInModal,
} from "./speaker-modal.ts";
export type { Parsed, StateValues } from "./state-values.ts";
export {
  buildLostStatus,
  buildStatusMessage,
  buildStatusMetadata,
  type StatusMessageOptions,
} from "./status-message.ts";
export {
  buildFileNotices,
  buildRefusal,
  buildStoreNotice,
  buildUsage,
  type FileNotice,
} from "./thread-replies.ts";
