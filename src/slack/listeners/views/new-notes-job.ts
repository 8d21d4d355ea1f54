import type { JobOptions } from "../../../jobs/index.ts";
import type { SpeakerHint } from "../../../notetaker/index.ts";
import { optional } from "../../../util/optional.ts";
import { type Locale, t } from "../../messages/index.ts";
import { safeMrkdwn } from "../../text/index.ts";
import { section } from "../../views/block-kit.ts";
import type { MessageContent, NewNotesSubmission } from "../../views/index.ts";
import type { ListenerDeps } from "../deps.ts";
import { saveTemplate, type TemplateChoice } from "../save-template.ts";

/**
 * The job's options from the form: participants and typed names as speaker hints (members
 * by their real names), context, language, and the template kept for the destination.
 */
export async function jobOptions(
  deps: ListenerDeps,
  request: NewNotesSubmission,
  template: TemplateChoice,
  teamId: string,
): Promise<JobOptions> {
  const members = await Promise.all(request.participantIds.map((id) => deps.directory.user(id)));
  const names = [...members.map((m) => m.name), ...request.extraNames];
  const speakers: SpeakerHint[] = [...new Set(names)].map((name) => ({ name }));
  const templateId = await saveTemplate(deps, template, {
    teamId,
    channelId: request.destinationChannelId,
  });
  return {
    ...(speakers.length === 0 ? {} : { speakers }),
    ...optional("contextText", request.contextText),
    ...optional("languageHint", request.languageHint),
    ...optional("templateId", templateId),
  };
}

/** A conversation id Slack gave (`conversations_select`), safe to link as `<#id>`. */
const CONVERSATION_ID = /^[CGD][A-Z0-9]{2,}$/;

/** A sentence naming the destination, linked for those who can see it. */
export function mentionChannel(
  locale: Locale,
  key: "new_notes.started" | "new_notes.already" | "new_notes.pending",
  channelId: string,
): MessageContent {
  const linked = CONVERSATION_ID.test(channelId) ? `<#${channelId}>` : safeMrkdwn(channelId);
  return {
    text: t(locale, key, { channel: linked }),
    blocks: [section(t(locale, key, { channel: linked }))],
  };
}
