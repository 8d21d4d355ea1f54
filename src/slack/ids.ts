/**
 * Every identifier Slack sends back to us: action ids of buttons, callback ids of modals,
 * block ids of inputs, and the metadata type of our messages. Listeners and view builders
 * both import them from here, so a renamed id cannot break one side silently.
 */

/** Buttons on the status message; each button's `value` is the job id. */
export const ACTIONS = {
  cancel: "job_cancel",
  nameSpeakers: "job_name_speakers",
  skipNaming: "job_skip_naming",
  retry: "job_retry",
  regenerate: "job_regenerate",
  /** Review before posting, in the reviewer's direct message (its Change names is `regenerate`). */
  postReview: "review_post",
  discardReview: "review_discard",
  /** App Home: a job's "Open thread" link button (no handler needed beyond ack). */
  openThread: "job_open_thread",
  /** The speaker modal's "Previous page" (its value is unused: the page is in the view). */
  speakersPrevious: "speakers_previous_page",
} as const;

/** Block ids of the modals' blocks that are not inputs (and so never take an error). */
export const MODAL_BLOCKS = {
  /** The speaker modal's "Previous page" button. */
  speakerPages: "speaker_pages",
} as const;

/**
 * `callback_id` of each shortcut, as the manifests declare it (`features.shortcuts`): Slack
 * sends it back in the `message_action` payload.
 */
export const SHORTCUTS = {
  /** "Make meeting notes" on a message: the `/meeting-notes` modal with its recording. */
  makeNotes: "make_meeting_notes",
} as const;

/**
 * `callback_id` of the Workflow Builder step "Make meeting notes" (the manifest's
 * `functions`): a function's id space is not the shortcuts', so the two may share it.
 */
export const STEP_CALLBACK_ID = "make_meeting_notes";

/** `callback_id` of each modal. */
export const VIEWS = {
  speakerNames: "speaker_names",
  regenerate: "regenerate_notes",
  newNotes: "new_notes",
  channelSettings: "channel_settings",
} as const;

/**
 * Block ids of the speaker modal: one set per speaker, each containing the speaker id so
 * a submission maps back without relying on block order.
 */
export const speakerBlock = {
  user: (speakerId: string) => `speaker:${speakerId}:user`,
  name: (speakerId: string) => `speaker:${speakerId}:name`,
  gender: (speakerId: string) => `speaker:${speakerId}:gender`,
  /** Parses a block id back into its speaker id and field. */
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

/** Only speakers' inputs have user/name/gender action ids. */
export const SPEAKER_ACTIONS = { user: "user", name: "name", gender: "gender" } as const;

/** `metadata.event_type` of every message the bot posts for a job. */
export const METADATA_EVENT_TYPE = "meeting_notes_job";
