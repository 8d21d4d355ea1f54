import { enReview } from "./en-review.ts";
import { enThread } from "./en-thread.ts";
import { enWaysIn } from "./en-ways-in.ts";
import { enWorkflow } from "./en-workflow.ts";

/**
 * The reference catalog; `{name}` is filled in by `t`. Mrkdwn text is written as mrkdwn (the
 * builders escape the values). Modal titles and buttons within 24 characters, button labels 75.
 */
export const en = {
  ...enThread,
  ...enReview,
  ...enWaysIn,
  ...enWorkflow,
  // Uploads that do not become a job.
  "refusal.unsupported_format":
    "{file} is not a recording I can use. Upload one of these formats: {formats}.",
  "refusal.too_large": "{file} is over 300 MB, the largest recording the Note Service takes.",
  "refusal.too_large_to_prepare": "{file} is over 1 GB, the largest file Slack lets me take.",
  "refusal.needs_ffmpeg":
    "I can't convert {file} because FFmpeg is not installed where I run (your admin can add it), so upload one of these formats: {formats}.",
  "refusal.too_large_needs_ffmpeg":
    "{file} is over 300 MB, the most the Note Service takes, and I can't shrink it because FFmpeg is not installed where I run (your admin can add it).",
  "refusal.empty": "{file} is empty.",
  "refusal.unreadable":
    "I can't read {file}: Slack does not let me see it (shared from another organization, hidden by the workspace's file limit, or deleted). Download it and upload it here again, or send it with /meeting-notes.",
  "refusal.unnamed": "the file shared here",
  "refusal.more": "…and {count} more files.",
  "template.unreadable":
    "I could not read that Word template, so the notes use the current one. Upload a .docx of at most 10 MB.",
  "new_notes.parent": "Meeting notes for {file}, asked for by {user}.",
  "new_notes.file_unreadable":
    "I could not read that recording from Slack. Try uploading it again.",
  "new_notes.not_in_channel":
    "I am not in that channel. Invite me there, or choose another channel.",

  // Buttons.
  "button.cancel": "Cancel",
  "button.name_speakers": "Name speakers",
  "button.skip": "Skip",
  "button.retry": "Retry",
  "button.regenerate": "Regenerate",
  "button.open_thread": "Open thread",
  "confirm.cancel.title": "Cancel these notes?",
  "confirm.cancel.text": "The recording stops being processed. You can upload it again later.",
  "confirm.cancel.yes": "Cancel notes",
  "confirm.cancel.no": "Keep going",

  // Modals: titles and buttons (at most 24 characters each).
  "modal.speakers.title": "Name the speakers",
  "modal.regenerate.title": "Regenerate notes",
  "modal.new_notes.title": "New meeting notes",
  "modal.settings.title": "Channel settings",
  "modal.speakers.submit": "Write notes",
  "modal.regenerate.submit": "Regenerate",
  "modal.new_notes.submit": "Start",
  "modal.settings.submit": "Save",
  "modal.close": "Cancel",

  // The speaker modal.
  "speakers.intro":
    "For each speaker, pick a Slack member or type a name. The quotes help you tell them apart.",
  "speakers.label": "Speaker {number}",
  "speakers.share": "{speaker} · {percent}% of talk time",
  "speakers.brief":
    "Spoke only {seconds} seconds: perhaps the same person as another speaker. Leave it empty if unsure.",
  "speakers.optional_hint":
    "Leave a speaker empty to keep a neutral label (Speaker 3). Two speakers may be the same person.",
  "speakers.no_quotes": "No quotes to show.",
  "speakers.user_label": "Slack member",
  "speakers.user_placeholder": "Choose a member",
  "speakers.name_label": "Or type a name",
  "speakers.name_placeholder": "Name as it should appear in the notes",
  "speakers.gender_label": "Gender",
  "speakers.gender_hint": "Optional. Helps the notes use the right pronouns.",
  "speakers.gender_placeholder": "Not specified",
  "gender.male": "Male (he/him)",
  "gender.female": "Female (she/her)",
  "regenerate.context_label": "Context",
  "regenerate.context_hint":
    "Agenda, glossary or decisions to look for. Leave empty to keep the current context.",
  "regenerate.template_label": "Word template (DOCX)",
  "regenerate.template_hint": "Optional. Leave empty to keep the current template.",

  // Validation errors shown under a modal's inputs.
  "validation.name_too_long": "Keep the name to {max} characters or fewer.",
  "validation.control_chars": "Remove the special (control) characters from this text.",
  "validation.recording_required": "Upload a recording or choose a recent one.",
  "validation.recording_both": "Choose either an uploaded recording or a recent one, not both.",
  "validation.extra_name_too_long": "“{name}” is longer than {max} characters.",
  "validation.language": "Choose a language from the list.",
  "validation.unreadable": "This form could not be read. Close it and try again.",

  // The /meeting-notes modal.
  "new_notes.recording_label": "Recording",
  "new_notes.recording_hint":
    "Files added here can be up to 10 MB. Upload larger recordings to the channel instead.",
  "new_notes.recent_label": "Or a recent recording from this channel",
  "new_notes.recent_placeholder": "Choose a recording",
  "new_notes.participants_label": "Participants",
  "new_notes.participants_hint": "Their real names help tell the speakers apart.",
  "new_notes.participants_placeholder": "Choose members",
  "new_notes.extra_names_label": "Other participants",
  "new_notes.extra_names_hint":
    "People who are not in Slack: one name per line, or commas between.",
  "new_notes.context_label": "Agenda or glossary",
  "new_notes.context_hint": "Helps with names, terms and what the notes focus on.",
  "new_notes.language_label": "Language",
  "new_notes.template_label": "Word template (DOCX)",
  "new_notes.template_hint": "Optional. The Note Service's own template is used otherwise.",
  "new_notes.destination_label": "Post the notes in",
  "language.auto": "Detect automatically",

  // The channel settings modal.
  "settings.intro": "Defaults for recordings in {channel}.",
  "settings.auto_label": "Transcribe uploads automatically",
  "settings.auto_on": "On: every recording uploaded here gets notes",
  "settings.auto_off": "Off: only recordings sent with /meeting-notes",
  "settings.language_label": "Language",
  "settings.context_label": "Context",
  "settings.context_hint": "Agenda, glossary or names used in this channel's meetings.",
  "settings.template_label": "Word template (DOCX)",
  "settings.delivery_label": "Besides the thread messages and the Word document",
  "settings.delivery_hint":
    "People are mentioned only when they were picked as Slack members in Name speakers.",
  "settings.delivery_canvas": "Put the notes in a canvas the channel can read",
  "settings.delivery_transcript": "Upload the transcript with the speakers' names (.txt and .vtt)",
  "settings.delivery_mentions": "Mention the people named in the notes",
  "settings.template_hint_none": "Optional. The Note Service's own template is used otherwise.",
  "settings.template_hint_set": "A template is set. Upload a new one to replace it.",
  "settings.template_clear_label": "Current template",
  "settings.template_clear": "Stop using the current template",
  "settings.saved": "Saved the settings for this channel.",

  // Replies to /meeting-notes and its subcommands.
  "help.intro": "Meeting notes from your recordings, right here in Slack.",
  "help.upload.prepared":
    "Upload a recording to a channel I am in, or send it to me in a direct message, and I answer in its thread: any audio or video up to 1 GB (an hour-long Meet or Teams video, an iPhone .mov, an .mkv screen recording…).",
  "help.upload.as_is":
    "Upload a recording ({formats}, up to 300 MB) to a channel I am in, or send it to me in a direct message, and I answer in its thread.",
  "help.open": "open a form to make notes from a recording",
  "help.help": "show this help",
  "help.status": "list the meeting notes in this channel",
  "help.settings": "change this channel's defaults (language, context, template)",
  "help.cancel": "cancel the latest running job in this channel",
  "command.unknown": "I do not know the command “{command}”.",
  "command.not_found": "I cannot find that job any more. It may have expired.",
  "command.wrong_stage.names": "That job is no longer waiting for names.",
  "command.wrong_stage.cancel": "That job has already finished.",
  "command.wrong_stage.retry": "That job can no longer be retried.",
  "command.wrong_stage.regenerate": "Notes can be regenerated only once they are ready.",
  "command.cooldown": "These notes were regenerated a moment ago. Try again in {time}.",
  "command.cancel.done": "Canceled the notes for {file}.",
  "command.cancel.none": "There is no running job to cancel in this channel.",
  "channel_status.header": "Meeting notes in this channel",
  "channel_status.empty": "No meeting notes in this channel yet. Upload a recording to start.",
  "channel_status.more": "…and {count} older",

  // Who may do what: said to a person whose click or command was refused.
  "permission.starter_or_admin.cancel":
    "Only the person who started these notes, or a workspace admin, can cancel them, and only while in the channel the notes are for.",
  "permission.starter_or_admin.regenerate":
    "Only the person who started these notes, or a workspace admin, can regenerate them, and only while in the channel the notes are for.",
  "permission.starter_or_member.names":
    "Only the person who started these notes, or a member of the notes' channel who is not a guest, can name the speakers, and only while in that channel.",
  "permission.starter_or_member.skip":
    "Only the person who started these notes, or a member of the notes' channel who is not a guest, can skip naming the speakers, and only while in that channel.",
  "permission.starter_or_member.retry":
    "Only the person who started these notes, or a member of the notes' channel who is not a guest, can retry them, and only while in that channel.",
  "permission.channel_member":
    "Only members of this channel who are not guests can change its meeting notes settings.",
  "permission.cannot_tell":
    "Slack could not confirm just now that you may do this, so nothing changed.",
  "permission.not_this_job": "That button does not belong to these notes.",
  "permission.destination.bot_not_in":
    "Invite me to that conversation first (/invite @Meeting Notes), or choose another one.",
  "permission.destination.user_not_in": "Choose a conversation you are in.",
  "permission.destination.unknown":
    "I could not check that conversation. Try again, or choose another one.",
  "permission.recording":
    "Choose one of your own recordings, or one shared in a conversation you are in.",
  "permission.recent": "Choose a recording from the list.",
  "permission.template":
    "Choose a Word template you uploaded, or one shared in a conversation you are in.",
  "settings.announced": "{user} changed the meeting notes settings of this channel: {changes}.",
  "settings.change.auto_on": "recordings uploaded here get notes automatically",
  "settings.change.auto_off": "recordings uploaded here no longer get notes automatically",
  "settings.change.canvas_on": "the notes go into a canvas",
  "settings.change.canvas_off": "no canvas for the notes",
  "settings.change.transcript_on": "the transcript is uploaded with the notes",
  "settings.change.transcript_off": "no transcript with the notes",
  "settings.change.mentions_on": "the people named in the notes are mentioned",
  "settings.change.mentions_off": "nobody is mentioned in the notes",
  "settings.change.language": "language {language}",
  "settings.change.language_auto": "language detected automatically",
  "settings.change.context_set": "new context",
  "settings.change.context_cleared": "no context",
  "settings.change.template_set": "a new Word template",
  "settings.change.template_cleared": "the Note Service's own Word template",

  // App Home.
  "home.header": "Your meeting notes",
  "home.intro": "Recordings you uploaded or sent with /meeting-notes, newest first.",
  "home.empty":
    "No meeting notes yet. Upload a recording to a channel I am in, or type /meeting-notes in any channel.",
  "home.more": "Showing the latest {shown} of {count}.",
  "home.started": "Started {when}",
  "home.store_reset":
    ":warning: The bot's storage was reset {when}, and the notes of {files} were lost; upload them again.",

  // Times.
  "time.just_now": "just now",
  "time.minutes_ago.one": "1 minute ago",
  "time.minutes_ago.other": "{count} minutes ago",
  "time.hours_ago.one": "1 hour ago",
  "time.hours_ago.other": "{count} hours ago",
  "time.days_ago.one": "1 day ago",
  "time.days_ago.other": "{count} days ago",

  // The note, posted in the thread.
  "note.part": "Part {index} of {total}",
  "note.fallback": "Meeting notes",
  "note.fallback_part": "Meeting notes, part {index} of {total}",

  // A modal while the app works on it, and after (opened at once, answered in time).
  "notice.loading": "One moment…",
  "notice.open_failed": "Slack did not let me open the form in time. Try again.",
  "notice.failed": "Something went wrong on my side. Close this and try again.",
  "notice.working":
    "Working on it: Slack is slow to answer right now. You can close this, I will finish anyway and tell you how it went.",
  "notice.not_done": "I could not do that:",
  // The bot's storage failed: a click or form not applied, an upload kept for later.
  "store.unavailable":
    "I could not do that just now: my storage is not answering. Try again in a minute.",
  "store.upload_waiting":
    "I have {file}: I will start on it as soon as my storage is working again.",
  "store.upload_lost":
    "I could not take {file}: my storage is not working. Share it again in a few minutes.",
  "new_notes.pending":
    "The notes will start in a thread in {channel} as soon as my storage is working again.",
  "new_notes.started": "The notes are on their way: they will appear in a thread in {channel}.",
  "new_notes.already": "Notes for this recording are already being made in {channel}.",
  "new_notes.already_thread":
    "Notes for this recording are already being made in <{url}|a thread> in {channel}.",
  "speakers.saved": "Thanks! The notes are being written with these names.",
  "speakers.regenerating": "A new version of the notes is being written.",
  "speakers.page":
    "Page {page} of {pages}: speakers {first} to {last} of {total}, the most heard first. What you enter is kept when you change pages.",
  "modal.speakers.next": "Next",
  "button.previous_page": "Previous page",
} as const;

export type MessageKey = keyof typeof en;

/** A catalog in another language: every English key, each a string. */
export type Catalog = { readonly [K in MessageKey]: string };
