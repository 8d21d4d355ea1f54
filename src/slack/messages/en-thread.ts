/** The English sentences of a job's thread: its status message, waits, stages and failures. */
export const enThread = {
  // The status message in the job's thread.
  "status.queued": "Getting ready to transcribe {file}…",
  "status.queued_waiting.one":
    "{file} is waiting its turn: 1 recording is ahead of it. Nothing is lost, it starts on its own.",
  "status.queued_waiting.other":
    "{file} is waiting its turn: {count} recordings are ahead of it. Nothing is lost, it starts on its own.",
  "status.downloading": "Downloading {file}…",
  "status.preparing": "Taking the sound out of {file} so the Note Service can use it…",
  "status.preparing_percent":
    "Taking the sound out of {file} so the Note Service can use it… {percent}%",
  "status.transcribing": "Transcribing {file}…",
  "status.transcribing_percent": "Transcribing {file}… {percent}%",
  "status.naming.one": "Heard 1 speaker. Name them so the notes use real names.",
  "status.naming.other": "Heard {count} speakers. Name them so the notes use real names.",
  "status.naming.more": "…and {count} more",
  "status.writing": "Writing the notes…",
  "status.delivering": "Posting the notes…",
  "status.done": "Notes ready.",
  "status.canvas": ":memo: <{url}|The notes as a canvas> — the channel can read it.",
  "status.no_canvas.not_allowed":
    "No canvas: this workspace does not let apps make canvases, so the notes are only in this thread.",
  "status.no_canvas.free_plan":
    "No canvas: this workspace's plan does not let apps make canvases, so the notes are only in this thread.",
  "status.no_canvas.missing_scope":
    "No canvas: the app lacks the canvases:write permission (an admin can reinstall it), so the notes are only in this thread.",
  "status.no_canvas.too_large":
    "No canvas: the notes are longer than a canvas holds, so they are only in this thread.",
  "status.no_canvas.refused":
    "No canvas: Slack would not make or share one for these notes, so they are only in this thread.",
  "status.canvas_dm": ":memo: <{url}|The notes as a canvas> — shared with you.",
  "status.failed": "Could not make notes from {file}.",
  "status.canceled": "Canceled by {user}.",
  "status.elapsed": "Elapsed {time}",
  "status.took": "Took {time}",
  "status.retry_hint": "Retry picks up where it stopped.",
  // The bot's store lost its data (Redis restarted empty): the job is gone.
  "status.lost":
    "This recording's notes were lost when the bot's storage was reset; upload it again.",
  // Why an active job waits before trying its step again.
  "status.waiting.slack_files":
    "Slack's file server is not answering right now, so I will try the download again shortly, on my own.",
  "status.waiting.slack_download_cut":
    "The download from Slack was cut off before the end, so I will try it again shortly, on my own.",
  "status.waiting.disk_full":
    "The disk I keep recordings on is full: I will try again on my own once an admin frees up space.",
  "status.waiting.note_service":
    "The Note Service is not answering right now; I will keep trying on my own.",

  // A job's stage in lists (App Home, `/meeting-notes status`), next to its file name.
  "stage.queued": "Queued",
  "stage.queued_waiting": "Waiting its turn ({count} ahead)",
  "stage.downloading": "Downloading…",
  "stage.preparing": "Preparing the audio…",
  "stage.preparing_percent": "Preparing the audio… {percent}%",
  "stage.transcribing": "Transcribing…",
  "stage.transcribing_percent": "Transcribing… {percent}%",
  "stage.naming": "Waiting for speaker names",
  "stage.writing": "Writing the notes…",
  "stage.delivering": "Posting the notes…",
  "stage.done": "Notes ready",
  "stage.failed": "Failed: {reason}",
  "stage.canceled": "Canceled",

  // Why a job failed: one plain sentence per failure code.
  "failure.task_failed": "The Note Service could not process it: {detail}",
  "failure.task_failed.plain": "The Note Service could not process it.",
  "failure.auth":
    "The Note Service did not accept this app's API key; an admin must correct it in the bot's settings.",
  "failure.address":
    "The bot's Note Service address is wrong, so I could not send this: an admin must correct it (it must end with the provider's API path), then press Retry.",
  "failure.refused": "The Note Service refused the request: {detail}",
  "failure.refused.plain": "The Note Service refused the request.",
  "failure.task_lost": "The Note Service lost track of this task.",
  "failure.timeout": "It took longer than {detail} minutes, so I stopped waiting.",
  "failure.timeout.plain": "It took too long, so I stopped waiting.",
  "failure.unavailable": "The Note Service is not reachable right now.",
  "failure.bad_response": "The Note Service sent an answer I could not read.",
  "failure.invalid_input": "The Note Service cannot take this input: {detail}",
  "failure.invalid_input.plain": "The Note Service cannot take this input.",
  "failure.invalid_input.template": "The Word template is no longer available.",
  "failure.download_failed": "I could not download the recording from Slack.",
  "failure.download_refused":
    "Slack would not let me read the recording: invite me to the channel where it was shared, or share the file here again.",
  "failure.download_unavailable":
    "Slack's file server did not answer for a long time, so I stopped trying to download the recording.",
  "failure.download_cut":
    "The download from Slack kept being cut off before the end, so I stopped trying.",
  "failure.disk_full": "The disk I keep recordings on is full; an admin must free up space first.",
  "failure.not_audio": "{file} isn't an audio recording, so I can't make notes from it.",
  "failure.unsupported_container":
    "{file} is really {format}, a format the Note Service doesn't take: save it as one of {formats} and share it again.",
  "failure.unsupported_container.plain":
    "{file} is in a format the Note Service doesn't take: save it as one of {formats} and share it again.",
  "failure.slack_failed":
    "Slack did not accept a message or file from me. Check that I am still in this channel.",
  "failure.slack_unavailable": "Slack did not answer me for a long time, so I stopped trying.",
  "failure.install_unavailable":
    "Slack revoked my access to this workspace, so I stopped; once an admin installs me again, Retry.",
  "failure.no_speech": "I could not hear any speech in the recording.",
  "failure.no_sound": "{file} has no sound, so there is nothing to make notes from.",
  "failure.prepare_failed": "I could not read the sound of {file}; the file may be damaged.",
  "failure.too_long": "{file} is longer than {hours} hours, the longest recording I take.",
  "failure.too_long.plain": "{file} is longer than the longest recording I take.",
  "failure.frame_too_large":
    "{file} holds video frames far larger than any meeting's, so I won't read it.",
  "failure.prepare_too_slow":
    "{file} took far longer to read than a recording of its length should; the file may be damaged.",
  "failure.prepare_failed.no_ffmpeg":
    "I can't prepare {file} because FFmpeg is no longer installed where I run; your admin can add it back, then Retry.",
  "failure.prepared_too_large":
    "{file} is too long: even as compressed speech it is over 300 MB, the most the Note Service takes.",
  "failure.docx_expired": "The Word document's link expired before I could fetch it.",
  "failure.link_refused":
    "The Note Service sent a link to an address I may not open (only public https links are allowed), so I stopped.",
  "failure.dialog_too_large":
    "The transcript the Note Service returned is larger than {detail} MB, so I stopped reading it.",
  "failure.dialog_too_large.plain":
    "The transcript the Note Service returned is too large, so I stopped reading it.",
  "failure.docx_too_large":
    "The Word document the Note Service returned is larger than {detail} MB, so I did not post it.",
  "failure.docx_too_large.plain":
    "The Word document the Note Service returned is too large, so I did not post it.",
  "failure.internal": "Something went wrong on my side.",
} as const;
