import type {
  ConversationsSelect,
  FileInput,
  KnownBlock,
  ModalView,
  MultiUsersSelect,
} from "@slack/types";
import { z } from "zod";
import { SUPPORTED_AUDIO_FORMATS } from "../../recordings/index.ts";
import { INPUTS, VIEWS } from "../ids.ts";
import { type Locale, type PlainKey, t } from "../messages/catalog.ts";
import { checkboxInput, docxInput, input, modal, plain, textArea } from "./block-kit.ts";
import { languageSelect } from "./language-select.ts";
import { SLACK_LIMITS } from "./limits.ts";
import type { ModalIdentity } from "./notice-modal.ts";
import { offeredRecordings, type RecentRecording, recentSelect } from "./recent-select.ts";

export interface NewNotesModalOptions {
  locale: Locale;
  /** The default place to post the notes. */
  channelId: string;
  /** Newest first. */
  recentRecordings: RecentRecording[];
  /** Slack rationed the read of the channel's history: the upload field says so. */
  recentBusy?: boolean;
  /** The channel's setting. */
  review?: boolean;
  /** The message shortcut: its recording is chosen, and the notes go in its thread by default. */
  fromMessage?: { chosenFileId: string; threadTs: string };
}

const MESSAGE_TS = /^\d{1,12}\.\d{1,8}$/;

const privateMetadataSchema = z.object({
  channelId: z.string().min(1),
  /** A submission may only pick one of these. */
  recent: z.array(z.string()).max(100).optional(),
  /** A submission answers in it within 3 seconds without asking Slack; trusted for no more. */
  locale: z.enum(["en", "vi"]).optional(),
  /** A ts, nothing else: the submission still checks who may post there. */
  threadTs: z.string().regex(MESSAGE_TS).optional(),
});

export type NewNotesMetadata = z.infer<typeof privateMetadataSchema>;

/** A recording (new or recent), who took part, context, language, template, where, review. */
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

function detailInputs(locale: Locale, channelId: string, inThread: boolean): KnownBlock[] {
  const { participants, extraNames, context, language, template, destination } = INPUTS;
  const hinted = (hint: PlainKey) => ({ hint: t(locale, hint) });
  const destinationHint = inThread ? hinted("new_notes.destination_thread_hint") : {};
  const inputs = [
    [participants, participantsSelect(locale), hinted("new_notes.participants_hint")],
    [extraNames, textArea(extraNames.action), hinted("new_notes.extra_names_hint")],
    [context, textArea(context.action), hinted("new_notes.context_hint")],
    [language, languageSelect(language.action, locale), { required: true }],
    [template, docxInput(template.action), hinted("new_notes.template_hint")],
    [destination, destinationSelect(channelId), { required: true, ...destinationHint }],
  ] as const;
  return inputs.map(([ids, element, extra]) =>
    input(ids.block, t(locale, `new_notes.${ids.block}_label`), element, extra),
  );
}

/** A destination whose settings ask for review has it whatever is ticked here. */
function reviewInput(locale: Locale, ticked: boolean): KnownBlock {
  const texts = {
    label: t(locale, "new_notes.review_label"),
    option: t(locale, "new_notes.review_option"),
    hint: t(locale, "new_notes.review_hint"),
  };
  return checkboxInput(INPUTS.review, texts, ticked);
}

/** The same from the loading view on; the submission reads its metadata. */
export function newNotesIdentity(channelId: string, locale: Locale): ModalIdentity {
  return {
    callbackId: VIEWS.newNotes,
    privateMetadata: JSON.stringify({ channelId, locale }),
    title: t(locale, "modal.new_notes.title"),
  };
}

export function parseNewNotesMetadata(privateMetadata: string): NewNotesMetadata | undefined {
  try {
    const parsed = privateMetadataSchema.safeParse(JSON.parse(privateMetadata));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Optional, because a recent recording may be chosen instead; the parser checks one is. */
function recordingInput(locale: Locale, recentBusy: boolean): KnownBlock {
  const element: FileInput = {
    type: "file_input",
    action_id: INPUTS.recording.action,
    filetypes: [...SUPPORTED_AUDIO_FORMATS],
    max_files: 1,
  };
  return input(INPUTS.recording.block, t(locale, "new_notes.recording_label"), element, {
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

/**
 * `initial_conversation` wins over `default_to_current_conversation`, the fallback if Slack
 * drops the id. Channels only: who may post is read from their members (no DM scopes asked for).
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
