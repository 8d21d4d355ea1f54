import type { ChannelSettings } from "../../../jobs/index.ts";
import { optional } from "../../../util/optional.ts";
import { INPUTS } from "../../ids.ts";
import { requestTenant } from "../../installs/request-tenant.ts";
import { t } from "../../messages/catalog.ts";
import {
  buildSettingsAnnouncement,
  buildSettingsSaved,
  permissionSentence,
} from "../../views/command-replies.ts";
import type { MessageContent } from "../../views/message-content.ts";
import { sentenceReply } from "../../views/notice-modal.ts";
import { parseSettingsSubmission, type SettingsSubmission } from "../../views/settings-modal.ts";
import type { ListenerDeps } from "../deps.ts";
import {
  chooseTemplate,
  saveTemplate,
  type TemplateChoice,
  templateRefusal,
} from "../save-template.ts";
import { answerInTime, type Verdict, type ViewArgs } from "./answer-in-time.ts";
import { type ReadSubmission, readSubmission } from "./modal-submission.ts";

/**
 * Membership is checked again as Slack has it now, as it may have changed since the modal opened.
 * Every change is said in the channel.
 */
export function channelSettingsSubmitted(
  deps: ListenerDeps,
  options: { decisionMs?: number } = {},
) {
  return async (args: ViewArgs) => {
    const read = await readSubmission(deps, args, {
      parse: parseSettingsSubmission,
      unreadableBlock: INPUTS.autoTranscribe.block,
      title: "modal.settings.title",
      decisionMs: options.decisionMs,
    });
    if (read === undefined) return;
    await answerInTime({
      ...read.answer,
      check: () => checkSettings(deps, read),
      proceed: async (template, tell) => {
        await saveSettings(deps, read, template, tell);
        return undefined;
      },
    });
  };
}

type Settings = ReadSubmission<SettingsSubmission>;

async function checkSettings(deps: ListenerDeps, s: Settings): Promise<Verdict<TemplateChoice>> {
  // Both must answer within Slack's 3 seconds to show under the inputs.
  const [allowed, template] = await Promise.all([
    deps.permissions.channelSettings(s.metadata.channelId, s.userId),
    chooseTemplate(deps, s.value.templateFileId, s.userId),
  ]);
  if (!allowed.ok) {
    const refusal = permissionSentence(allowed.reason, "settings", s.locale);
    return { ok: false, errors: { [INPUTS.autoTranscribe.block]: refusal } };
  }
  if (template.kind === "refused") return { ok: false, errors: templateRefusal(s.locale) };
  return { ok: true, value: template };
}

/** After the ack; says so to the person and the channel. */
async function saveSettings(
  deps: ListenerDeps,
  { metadata: { channelId }, value: request, userId, locale }: Settings,
  template: TemplateChoice,
  tell: (reply: MessageContent) => Promise<void>,
): Promise<void> {
  const tenant = requestTenant();
  const current = await deps.settings.get(tenant, channelId);
  const scope = { teamId: tenant, channelId };
  const uploaded = await saveTemplate(deps, template, scope, { pinned: true });
  const next = nextSettings(current, request, uploaded);
  await deps.settings.set(tenant, channelId, next);
  await tell(buildSettingsSaved(locale));
  if (template.kind !== "none" && uploaded === undefined) {
    await tell(sentenceReply(t(locale, "template.unreadable")));
  }
  const announcement = buildSettingsAnnouncement(userId, current, next, locale);
  if (announcement === undefined) return;
  await deps.responder.announce(channelId, announcement);
}

function nextSettings(
  current: ChannelSettings,
  request: SettingsSubmission,
  uploadedTemplateId: string | undefined,
): ChannelSettings {
  const templateId = request.clearTemplate ? undefined : (uploadedTemplateId ?? current.templateId);
  return {
    autoTranscribe: request.autoTranscribe,
    canvas: request.delivery?.canvas ?? current.canvas,
    transcript: request.delivery?.transcript ?? current.transcript,
    mentions: request.delivery?.mentions ?? current.mentions,
    review: request.review ?? current.review,
    ...optional("languageHint", request.languageHint),
    ...optional("contextText", request.contextText),
    ...optional("templateId", templateId),
  };
}
