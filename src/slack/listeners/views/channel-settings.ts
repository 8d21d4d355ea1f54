import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from "@slack/bolt";
import { INPUTS } from "../../ids.ts";
import { localeOf, t } from "../../messages/index.ts";
import {
  buildSettingsSaved,
  parseNewNotesMetadata,
  parseSettingsSubmission,
} from "../../views/index.ts";
import { type ListenerDeps, tellUser } from "../deps.ts";
import { saveTemplate } from "./speaker-names.ts";

type ViewArgs = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;

/** `/meeting-notes settings`: the channel's defaults for new jobs. */
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
    if (channelId === undefined) {
      const unreadable = t(locale, "validation.unreadable");
      await ack({
        response_action: "errors",
        errors: { [INPUTS.autoTranscribe.block]: unreadable },
      });
      return;
    }
    await ack();
    const teamId = body.team?.id ?? body.user.team_id ?? "";
    const current = await deps.jobs.getChannelSettings(teamId, channelId);
    const request = parsed.value;
    const uploaded =
      request.templateFileId === undefined
        ? undefined
        : await saveTemplate(deps, request.templateFileId);
    const templateId = request.clearTemplate ? undefined : (uploaded ?? current.templateId);
    await deps.jobs.setChannelSettings(teamId, channelId, {
      autoTranscribe: request.autoTranscribe,
      ...(request.languageHint === undefined ? {} : { languageHint: request.languageHint }),
      ...(request.contextText === undefined ? {} : { contextText: request.contextText }),
      ...(templateId === undefined ? {} : { templateId }),
    });
    const target = { channel: channelId, user: userId };
    await tellUser(client, deps.logger, target, buildSettingsSaved(locale));
    if (request.templateFileId !== undefined && uploaded === undefined) {
      await tellUser(client, deps.logger, target, {
        text: t(locale, "template.unreadable"),
        blocks: [],
      });
    }
  };
}
