/** The Workflow step's failures; once its job has started, the job's thread says the rest. */
export const enWorkflow = {
  "step.inputs":
    "This step needs a recording file, a channel to post the notes in and the person who used the workflow.",
  "step.recording_unreadable":
    "I cannot open that recording: it was deleted, or it is shared nowhere I am, so share it in a channel I am in and run the workflow again.",
  "step.not_a_recording": "{file} is not a recording I can use: the step takes {formats}.",
  "step.recording_not_theirs":
    "The recording must be one the person who used this workflow uploaded, or one shared in a conversation they are in.",
  "step.bot_not_in":
    "I am not in the channel to post the notes in: invite me there (/invite @Meeting Notes), or choose another channel in the step.",
  "step.user_not_in":
    "The person who used this workflow is not in the channel to post the notes in, so they could not name the speakers there.",
  "step.channel_unknown":
    "I could not check the channel to post the notes in; run the workflow again in a moment.",
  "step.thread_failed": "I could not post in the channel to post the notes in.",
  "step.already": "Notes for this recording are already being made in that channel.",
  "step.store_unavailable":
    "My storage is not working right now, so no notes were started; run the workflow again later.",
  "step.no_link":
    "The notes are being made in the channel you chose, but Slack gave me no link to their thread.",
} as const;
