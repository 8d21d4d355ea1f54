import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from "@slack/bolt";
import type { ChannelSettings } from "../../../jobs/index.ts";
import { optional } from "../../../util/optional.ts";
import { INPUTS, VIEWS } from "../../ids.ts";
import { type Locale, t } from "../../messages/index.ts";
import {
  buildNoticeModal,
  buildSettingsAnnouncement,
  buildSettingsSaved,
  type MessageContent,
  parseNewNotesMetadata,
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
import { answeredBefore, answerInTime, submitterLocale, type Verdict } from "./answer-in-time.ts";

type ViewArgs = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;

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
    const { ack, view, body } = args;
    const userId = body.user?.id;
    if (typeof userId !== "string") return void (await ack());
    if (await answeredBefore(deps, ack, view)) return;
    const metadata = parseNewNotesMetadata(String(view.private_metadata ?? ""));
    const locale = await submitterLocale(deps, userId, metadata?.locale);
    const parsed = parseSettingsSubmission(view.state?.values, locale);
    if (!parsed.ok) return void (await ack({ response_action: "errors", errors: parsed.errors }));
    if (metadata === undefined) {
      const errors = { [INPUTS.autoTranscribe.block]: t(locale, "validation.unreadable") };
      return void (await ack({ response_action: "errors", errors }));
    }
    const request = { channelId: metadata.channelId, userId, request: parsed.value, locale };
    await answerRequest(deps, args, request, { startedAt, ...options });
  };
}

/** The look-ups within the ack's 3 seconds, then the settings saved and announced. */
async function answerRequest(
  deps: ListenerDeps,
  { ack, view, body }: ViewArgs,
  r: { channelId: string; userId: string; request: SettingsSubmission; locale: Locale },
  timing: { startedAt: number; decisionMs?: number },
): Promise<void> {
  const { locale } = r;
  const teamId = body.team?.id ?? body.user.team_id ?? "";
  const identity = {
    callbackId: VIEWS.channelSettings,
    privateMetadata: String(view.private_metadata ?? ""),
    title: t(locale, "modal.settings.title"),
  };
  const target = { channel: r.channelId, user: r.userId };
  await answerInTime({
    deps,
    ack,
    view,
    teamId,
    locale,
    startedAt: timing.startedAt,
    ...optional("budgetMs", timing.decisionMs),
    check: () => checkSettings(deps, r),
    refuse: (errors) => ({ response_action: "errors", errors }),
    proceed: async (template, tell) => {
      await saveSettings(deps, { ...r, teamId, template }, tell);
      return undefined;
    },
    tellAlone: (reply) => deps.responder.tellUser(target, reply),
    notice: (replies) => buildNoticeModal(identity, locale, replies),
  });
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
    teamId: string;
    channelId: string;
    userId: string;
    request: SettingsSubmission;
    template: TemplateChoice;
    locale: Locale;
  },
  tell: (reply: MessageContent) => Promise<void>,
): Promise<void> {
  const { teamId, channelId, locale, template } = s;
  const current = await deps.settings.get(teamId, channelId);
  const scope = { teamId, channelId };
  const uploaded = await saveTemplate(deps, template, scope, { pinned: true });
  const next = nextSettings(current, s.request, uploaded);
  await deps.settings.set(teamId, channelId, next);
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
    ...optional("languageHint", request.languageHint),
    ...optional("contextText", request.contextText),
    ...optional("templateId", templateId),
  };
}
