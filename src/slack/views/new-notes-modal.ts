import type {
  Checkboxes,
  ConversationsSelect,
  FileInput,
  KnownBlock,
  ModalView,
  MultiUsersSelect,
  PlainTextInput,
} from "@slack/types";
import { z } from "zod";
import { SUPPORTED_AUDIO_FORMATS } from "../../recordings/index.ts";
import { INPUTS, VIEWS } from "../ids.ts";
import { type Locale, type PlainKey, t } from "../messages/index.ts";
import { input, modal, option, plain } from "./block-kit.ts";
import { languageSelect } from "./language-select.ts";
import { SLACK_LIMITS } from "./limits.ts";
import { offeredRecordings, type RecentRecording, recentSelect } from "./recent-select.ts";

export interface NewNotesModalOptions {
  locale: Locale;
  /** The channel the command was typed in: the default place to post the notes. */
  channelId: string;
  /** Newest first; at most 100 are offered (Slack's limit for a select). */
  recentRecordings: RecentRecording[];
  /**
   * The channel's recent recordings could not be listed now (Slack rationed the read of its
   * history): the upload field says so, in one sentence.
   */
  recentBusy?: boolean;
  /** Review before posting ticked at first: the channel's setting. */
  review?: boolean;
  /**
   * The message shortcut: `recentRecordings` are that message's, this one is chosen, and
   * the notes go in the message's thread (`threadTs` in `channelId`) unless the person
   * picks another destination.
   */
  fromMessage?: { chosenFileId: string; threadTs: string };
}

/** A message ts as Slack writes it (`1718000000.123456`). */
const MESSAGE_TS = /^\d{1,12}\.\d{1,8}$/;

const privateMetadataSchema = z.object({
  channelId: z.string().min(1),
  /** The recent recordings offered: a submission may only pick one of these. */
  recent: z.array(z.string()).max(100).optional(),
  /**
   * The language the modal was shown in: a submission answers in it within its 3 seconds
   * without asking Slack for the person's locale again. Only a language, never trusted
   * for more.
   */
  locale: z.enum(["en", "vi"]).optional(),
  /**
   * The message shortcut's message: the notes go in its thread when the destination is
   * still `channelId`. A ts, nothing else: the submission still checks who may post there.
   */
  threadTs: z.string().regex(MESSAGE_TS).optional(),
});

/** What the modal remembers between opening and submission. */
export type NewNotesMetadata = z.infer<typeof privateMetadataSchema>;

/**
 * The `/meeting-notes` modal: a recording (a new file, or one of the channel's recent
 * recordings), who took part (members, and names typed by hand), an agenda or glossary, the
 * language, an optional DOCX template, where to post, and review before posting. `private_metadata` is
 * `{"channelId": …, "recent": [file ids], "locale": …}`: the channel the command came
 * from, the recordings offered (a submission naming another file is refused) and the
 * language shown.
 */
export function buildNewNotesModal(options: NewNotesModalOptions): ModalView {
  const { locale, channelId, fromMessage } = options;
  const offered = offeredRecordings(options.recentRecordings);
  const blocks: KnownBlock[] = [
    recordingInput(locale, options.recentBusy === true && offered.length === 0),
  ];
  const recent = recentSelect(offered, locale, fromMessage?.chosenFileId);
  if (recent !== undefined) blocks.push(recent);
  blocks.push(
    ...detailInputs(locale, channelId, fromMessage !== undefined),
    reviewInput(locale, options.review === true),
  );
  const texts = {
    title: t(locale, "modal.new_notes.title"),
    submit: t(locale, "modal.new_notes.submit"),
    close: t(locale, "modal.close"),
  };
  const metadata: NewNotesMetadata =
    offered.length === 0
      ? { channelId, locale }
      : { channelId, recent: offered.map((r) => r.fileId), locale };
  if (fromMessage !== undefined && MESSAGE_TS.test(fromMessage.threadTs)) {
    metadata.threadTs = fromMessage.threadTs;
  }
  return modal(VIEWS.newNotes, texts, JSON.stringify(metadata), blocks);
}

/**
 * Everything after the recording: who, context, language, template, where to post (with
 * a hint that the notes go in the message's thread, for the message shortcut).
 */
function detailInputs(locale: Locale, channelId: string, inThread: boolean): KnownBlock[] {
  const optional = (hint: PlainKey) => ({ optional: true, hint: t(locale, hint) });
  const { participants, extraNames, context, language, template, destination } = INPUTS;
  return [
    input(
      participants.block,
      t(locale, "new_notes.participants_label"),
      participantsSelect(locale),
      optional("new_notes.participants_hint"),
    ),
    input(
      extraNames.block,
      t(locale, "new_notes.extra_names_label"),
      multiline(extraNames.action),
      optional("new_notes.extra_names_hint"),
    ),
    input(
      context.block,
      t(locale, "new_notes.context_label"),
      multiline(context.action),
      optional("new_notes.context_hint"),
    ),
    input(
      language.block,
      t(locale, "new_notes.language_label"),
      languageSelect(language.action, locale),
    ),
    input(
      template.block,
      t(locale, "new_notes.template_label"),
      docxInput(template.action),
      optional("new_notes.template_hint"),
    ),
    input(
      destination.block,
      t(locale, "new_notes.destination_label"),
      destinationSelect(channelId),
      inThread ? { hint: t(locale, "new_notes.destination_thread_hint") } : {},
    ),
  ];
}

/**
 * Review before posting: the notes go to the requester first, to post or discard. A
 * destination whose settings ask for review has it whatever is ticked here.
 */
function reviewInput(locale: Locale, ticked: boolean): KnownBlock {
  const box = option(t(locale, "new_notes.review_option"), INPUTS.review.action);
  const element: Checkboxes = {
    type: "checkboxes",
    action_id: INPUTS.review.action,
    options: [box],
    ...(ticked ? { initial_options: [box] } : {}),
  };
  return input(INPUTS.review.block, t(locale, "new_notes.review_label"), element, {
    optional: true,
    hint: t(locale, "new_notes.review_hint"),
  });
}

/** The new-notes modal's `private_metadata`; undefined when malformed. */
export function parseNewNotesMetadata(privateMetadata: string): NewNotesMetadata | undefined {
  try {
    const parsed = privateMetadataSchema.safeParse(JSON.parse(privateMetadata));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Optional, because a recent recording can be chosen instead; the parser checks one is. */
/** The upload field; its hint says why no recent recording is offered when Slack held the read. */
function recordingInput(locale: Locale, recentBusy: boolean): KnownBlock {
  const element: FileInput = {
    type: "file_input",
    action_id: INPUTS.recording.action,
    filetypes: [...SUPPORTED_AUDIO_FORMATS],
    max_files: 1,
  };
  return input(INPUTS.recording.block, t(locale, "new_notes.recording_label"), element, {
    optional: true,
    hint: t(locale, recentBusy ? "new_notes.recent_busy" : "new_notes.recording_hint"),
  });
}

function participantsSelect(locale: Locale): MultiUsersSelect {
  return {
    type: "multi_users_select",
    action_id: INPUTS.participants.action,
    placeholder: plain(t(locale, "new_notes.participants_placeholder"), SLACK_LIMITS.placeholder),
  };
}

function multiline(actionId: string): PlainTextInput {
  return {
    type: "plain_text_input",
    action_id: actionId,
    multiline: true,
    max_length: SLACK_LIMITS.plainTextInput,
  };
}

/** A DOCX template: one file, at most 10 MB (Slack's limit for `file_input`). */
export function docxInput(actionId: string): FileInput {
  return { type: "file_input", action_id: actionId, filetypes: ["docx"], max_files: 1 };
}

/**
 * Where to post, defaulting to the channel of the command. `initial_conversation` wins
 * over `default_to_current_conversation`; the latter is the fallback if Slack drops the id.
 * Channels only, public or private: who may post there is read from their members, which
 * the bot's `channels:read` and `groups:read` let it see (no DM scopes asked for).
 */
function destinationSelect(channelId: string): ConversationsSelect {
  return {
    type: "conversations_select",
    action_id: INPUTS.destination.action,
    initial_conversation: channelId,
    default_to_current_conversation: true,
    filter: { include: ["public", "private"], exclude_bot_users: true },
  };
}
