// Every id Slack sends back to us, shared by listeners and view builders so a rename cannot
// break one side silently.

/** Buttons on the status message; each button's `value` is the job id. */
export const ACTIONS = {
  cancel: "job_cancel",
  nameSpeakers: "job_name_speakers",
  skipNaming: "job_skip_naming",
  retry: "job_retry",
  regenerate: "job_regenerate",
  // Review before posting (its Change names is `regenerate`).
  postReview: "review_post",
  discardReview: "review_discard",
  // App Home's link button: no handler beyond the ack.
  openThread: "job_open_thread",
  speakersPrevious: "speakers_previous_page",
} as const;

/** Block ids of the modals' blocks that are not inputs (and so never take an error). */
export const MODAL_BLOCKS = {
  speakerPages: "speaker_pages",
} as const;

/** `callback_id`s of the manifests' `features.shortcuts`. */
export const SHORTCUTS = {
  makeNotes: "make_meeting_notes",
} as const;

/** The Workflow step's `callback_id`, free to equal a shortcut's: their id spaces are apart. */
export const STEP_CALLBACK_ID = "make_meeting_notes";

export const VIEWS = {
  speakerNames: "speaker_names",
  regenerate: "regenerate_notes",
  newNotes: "new_notes",
  channelSettings: "channel_settings",
} as const;

/** Speaker block ids carry the speaker id, so a submission maps back without block order. */
export const speakerBlock = {
  user: (speakerId: string) => `speaker:${speakerId}:user`,
  name: (speakerId: string) => `speaker:${speakerId}:name`,
  gender: (speakerId: string) => `speaker:${speakerId}:gender`,
  parse(blockId: string): { speakerId: string; field: "user" | "name" | "gender" } | undefined {
    const match = /^speaker:(.+):(user|name|gender)$/.exec(blockId);
    if (match?.[1] === undefined || match[2] === undefined) return undefined;
    return { speakerId: match[1], field: match[2] as "user" | "name" | "gender" };
  },
};

/** Block and action ids of the other modals' inputs (`<block>` holds one `<action>`). */
export const INPUTS = {
  recording: { block: "recording", action: "file" },
  recentRecording: { block: "recent_recording", action: "recent" },
  participants: { block: "participants", action: "users" },
  extraNames: { block: "extra_names", action: "names" },
  context: { block: "context", action: "text" },
  language: { block: "language", action: "code" },
  template: { block: "template", action: "file" },
  destination: { block: "destination", action: "conversation" },
  autoTranscribe: { block: "auto_transcribe", action: "choice" },
  clearTemplate: { block: "clear_template", action: "clear" },
  delivery: { block: "delivery", action: "options" },
  review: { block: "review", action: "choice" },
} as const;

export const SPEAKER_ACTIONS = { user: "user", name: "name", gender: "gender" } as const;

/** `metadata.event_type` of every message the bot posts for a job. */
export const METADATA_EVENT_TYPE = "meeting_notes_job";
