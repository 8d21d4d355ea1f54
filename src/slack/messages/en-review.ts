/** Review before posting: the DM with the note, its buttons, the job's status, the settings. */
export const enReview = {
  // The job's status message in the thread, and its stage in lists.
  "status.reviewing":
    "The notes are waiting for {user}'s review: nothing is posted here until they post them.",
  "status.discarded": "Discarded by {user}: no notes were posted.",
  "status.expired": "Discarded: nobody posted the notes before they expired.",
  "stage.reviewing": "Waiting for review",
  "stage.discarded": "Discarded",
  "failure.review_unreachable":
    "I could not send the notes for review in a direct message. An admin may need to reinstall the app (it needs to open direct messages), then Retry.",

  // The review's first message, in the bot's direct message with the person.
  "review.coming": "Your notes on {file} for {channel} are on their way for your review…",
  "review.ready":
    "Your notes on {file} for {channel} are ready for your review, in this message's thread: the notes, the Word document and the transcript. Nobody else sees them until you post them.",
  "review.expires": "If nobody posts or discards them, they expire on {date}.",
  "review.posted": "{user} posted these notes to {channel}.",
  "review.discarded": "{user} discarded these notes: nothing was posted in {channel}.",
  "review.expired":
    "These notes expired before anyone posted them: nothing was posted in {channel}.",
  "review.replaced": "A newer version of these notes came for your review, in a message below.",
  "review.reminder":
    "Your notes on {file} for {channel} are still waiting for your review and expire tomorrow: post or discard them in the message above.",
  "review.fallback": "Meeting notes for your review",
  "review.conversation": "the conversation they came from",
  "button.post_to_thread": "Post to thread",
  "button.change_names": "Change names",
  "button.discard": "Discard",
  "confirm.discard.title": "Discard these notes?",
  "confirm.discard.text":
    "Nothing is posted in the channel, and these notes cannot be posted later.",
  "confirm.discard.yes": "Discard",
  "confirm.discard.no": "Keep them",
  "permission.starter_or_admin.post":
    "Only the person who started these notes, or a workspace admin, can post them, and only while in the channel the notes are for.",
  "permission.starter_or_admin.discard":
    "Only the person who started these notes, or a workspace admin, can discard them, and only while in the channel the notes are for.",
  "command.wrong_stage.review": "These notes are not waiting for review any more.",

  // The channel settings modal and the /meeting-notes modal.
  "settings.review_label": "Review before posting",
  "settings.review_option": "Send the notes first to the person who started them",
  "settings.review_hint":
    "They reach this channel only when that person posts them; they can also discard them. Off unless turned on.",
  "settings.change.review_on": "notes go first to the person who started them, for review",
  "settings.change.review_off": "notes are posted without review",
  "new_notes.review_label": "Review",
  "new_notes.review_option": "Send me the notes to review before they are posted",
  "new_notes.review_hint": "Always on where the channel's settings ask for review.",
} as const;
