import type { ChannelSettings } from "../../../jobs/index.ts";
import { optional } from "../../../util/optional.ts";
import { INPUTS, VIEWS } from "../../ids.ts";
import { requestTenant } from "../../installs/request-tenant.ts";
import { type Locale, t } from "../../messages/index.ts";
import {
  buildSettingsAnnouncement,
  buildSettingsSaved,
  type MessageContent,
  parseSettingsSubmission,
  permissionSentence,
  type SettingsSubmission,
  sentenceReply,
} from "../../views/index.ts";
import type { ListenerDeps } from "../deps.ts";
import {
  chooseTemplate,
  saveTemplate,
  type TemplateChoice,
  templateRefusal,
} from "../save-template.ts";
import type { Verdict } from "./answer-in-time.ts";
import { answerModal, readSubmission, type ViewArgs } from "./modal-submission.ts";

/**
 * `/meeting-notes settings`: the channel's defaults for new jobs. Only non-guest members of
 * the channel may change them (checked again here, as Slack has it now: the modal names its
 * channel in `private_metadata`, and membership may have changed since it opened), a new
 * template must be theirs to use, and every change is said in the channel with who made it.
 * The form is checked at once, the look-ups within the ack's 3 seconds
 * ({@link answerInTime}); a second delivery of the same submission changes nothing again.
 */
export function channelSettingsSubmitted(
  deps: ListenerDeps,
  options: { decisionMs?: number } = {},
) {
  return async (args: ViewArgs) => {
    const startedAt = Date.now();
    const read = await readSubmission(deps, args, {
      parse: parseSettingsSubmission,
      unreadableBlock: INPUTS.autoTranscribe.block,
    });
    if (read === undefined) return;
    const { userId, locale } = read;
    const r = { channelId: read.metadata.channelId, userId, request: read.value, locale };
    await answerModal(deps, args, {
      callbackId: VIEWS.channelSettings,
      title: t(locale, "modal.settings.title"),
      channelId: r.channelId,
      userId,
      locale,
      timing: { startedAt, ...options },
      check: () => checkSettings(deps, r),
      proceed: async (template, tell) => {
        await saveSettings(deps, { ...r, template }, tell);
        return undefined;
      },
    });
  };
}

/** May the person change the channel's settings, and use the template they chose? */
async function checkSettings(
  deps: ListenerDeps,
  s: { channelId: string; userId: string; request: SettingsSubmission; locale: Locale },
): Promise<Verdict<TemplateChoice>> {
  // Asked together: both must be answered within Slack's 3 seconds to show under inputs.
  const [allowed, template] = await Promise.all([
    deps.permissions.channelSettings(s.channelId, s.userId),
    chooseTemplate(deps, s.request.templateFileId, s.userId),
  ]);
  if (!allowed.ok) {
    const refusal = permissionSentence(allowed.reason, "settings", s.locale);
    return { ok: false, errors: { [INPUTS.autoTranscribe.block]: refusal } };
  }
  if (template.kind === "refused") return { ok: false, errors: templateRefusal(s.locale) };
  return { ok: true, value: template };
}

/** After the ack: keeps the template, saves the settings, says so to the person and the channel. */
async function saveSettings(
  deps: ListenerDeps,
  s: {
    channelId: string;
    userId: string;
    request: SettingsSubmission;
    template: TemplateChoice;
    locale: Locale;
  },
  tell: (reply: MessageContent) => Promise<void>,
): Promise<void> {
  const { channelId, locale, template } = s;
  // Kept under the request's tenant, as every value a request writes.
  const tenant = requestTenant();
  const current = await deps.settings.get(tenant, channelId);
  const scope = { teamId: tenant, channelId };
  const uploaded = await saveTemplate(deps, template, scope, { pinned: true });
  const next = nextSettings(current, s.request, uploaded);
  await deps.settings.set(tenant, channelId, next);
  await tell(buildSettingsSaved(locale));
  if (template.kind !== "none" && uploaded === undefined) {
    await tell(sentenceReply(t(locale, "template.unreadable")));
  }
  const announcement = buildSettingsAnnouncement(s.userId, current, next, locale);
  if (announcement === undefined) return;
  await deps.responder.announce(channelId, announcement);
}

/** The settings as they become: the request over the current ones. */
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
