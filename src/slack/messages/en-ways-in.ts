/** The message shortcut and an @mention of the bot. */
export const enWaysIn = {
  // The message shortcut (said to the person alone, through the payload's response_url).
  "shortcut.no_recording":
    "There is no recording in that message. Use Make meeting notes on a message with an audio or video file, or type /meeting-notes.",
  "shortcut.not_in_channel":
    "I am not in this channel, so I cannot read that recording. Invite me (/invite @Meeting Notes) and try again.",
  "new_notes.message_recording_label": "Recording from the message",
  "new_notes.destination_thread_hint":
    "Keep this channel and the notes go in the thread of that message.",
  // An @mention in a thread (said to the person alone).
  "mention.pending": "The notes will start in this thread as soon as my storage is working again.",
  "mention.history_busy":
    "I cannot look at this thread's first message for a minute (Slack allows me few reads of message history): mention me again in a minute, or use Make meeting notes on the recording's message.",
  "new_notes.recent_busy":
    "Recent recordings cannot be listed for a minute (Slack allows me few reads of message history): upload the recording here, or try again in a minute.",
  "usage.intro": "Here is how to get meeting notes from me:",
  "usage.upload":
    "Upload a recording to a channel I am in (where automatic notes are on), or send it to me in a direct message.",
  "usage.mention":
    "Mention me (@Meeting Notes) in the thread of a recording, or in the message you upload it with.",
  "usage.shortcut":
    "On a message with a recording, choose Make meeting notes in its menu (More actions).",
  "usage.command": "Type /meeting-notes to choose a recording and where the notes go.",
} as const;
