import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from "@slack/bolt";
import type { ChannelSettings } from "../../../jobs/index.ts";
import { INPUTS } from "../../ids.ts";
import { localeOf, t } from "../../messages/index.ts";
import {
  buildSettingsAnnouncement,
  buildSettingsSaved,
  parseNewNotesMetadata,
  parseSettingsSubmission,
  permissionSentence,
  type SettingsSubmission,
} from "../../views/index.ts";
import type { ListenerDeps } from "../deps.ts";
import { announce, tellUser } from "../replies.ts";
import { chooseTemplate, saveTemplate, templateRefusal } from "../save-template.ts";

type ViewArgs = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;

/**
 * `/meeting-notes settings`: the channel's defaults for new jobs. Only non-guest members of
 * the channel may change them (checked again here, as Slack has it now: the modal names its
 * channel in `private_metadata`, and membership may have changed since it opened), a new
 * template must be theirs to use, and every change is said in the channel with who made it.
 */
export function channelSettingsSubmitted(deps: ListenerDeps) {
  return async ({ ack, view, body, client }: ViewArgs) => {
    const userId = body.user?.id;
    if (typeof userId !== "string") return void (await ack());
    const locale = localeOf((await deps.directory.user(userId)).locale);
    const parsed = parseSettingsSubmission(view.state?.values, locale);
    const channelId = parseNewNotesMetadata(String(view.private_metadata ?? ""))?.channelId;
    if (!parsed.ok) {
      await ack({ response_action: "errors", errors: parsed.errors });
      return;
    }
    const block = INPUTS.autoTranscribe.block;
    if (channelId === undefined) {
      await ack({
        response_action: "errors",
        errors: { [block]: t(locale, "validation.unreadable") },
      });
      return;
    }
    const request = parsed.value;
    // Asked together: both must be answered before the ack, within Slack's 3 seconds.
    const [allowed, template] = await Promise.all([
      deps.permissions.channelSettings(channelId, userId),
      chooseTemplate(deps, request.templateFileId, userId),
    ]);
    if (!allowed.ok) {
      const refusal = permissionSentence(allowed.reason, "settings", locale);
      await ack({ response_action: "errors", errors: { [block]: refusal } });
      return;
    }
    if (template.kind === "refused") {
      await ack({ response_action: "errors", errors: templateRefusal(locale) });
      return;
    }
    await ack();
    const teamId = body.team?.id ?? body.user.team_id ?? "";
    const current = await deps.jobs.getChannelSettings(teamId, channelId);
    const uploaded = await saveTemplate(deps, template, { teamId, channelId }, { pinned: true });
    const next = nextSettings(current, request, uploaded);
    await deps.jobs.setChannelSettings(teamId, channelId, next);
    const target = { channel: channelId, user: userId };
    await tellUser(client, deps.logger, target, buildSettingsSaved(locale));
    if (template.kind !== "none" && uploaded === undefined) {
      await tellUser(client, deps.logger, target, {
        text: t(locale, "template.unreadable"),
        blocks: [],
      });
    }
    const announcement = buildSettingsAnnouncement(userId, current, next, locale);
    if (announcement === undefined) return;
    await announce(client, deps.logger, channelId, announcement);
  };
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
    ...(request.languageHint === undefined ? {} : { languageHint: request.languageHint }),
    ...(request.contextText === undefined ? {} : { contextText: request.contextText }),
    ...(templateId === undefined ? {} : { templateId }),
  };
}
