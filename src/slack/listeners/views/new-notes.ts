import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from "@slack/bolt";
import type { WebClient } from "@slack/web-api";
import type { SourceFile } from "../../../jobs/index.ts";
import type { SpeakerHint } from "../../../notetaker/index.ts";
import { platformErrorOf } from "../../gateway/slack-errors.ts";
import { INPUTS } from "../../ids.ts";
import { type Locale, localeOf, t } from "../../messages/index.ts";
import { toSourceFile } from "../../recording-file.ts";
import { safeMrkdwn } from "../../text/index.ts";
import {
  buildRefusal,
  type NewNotesSubmission,
  parseNewNotesMetadata,
  parseNewNotesSubmission,
} from "../../views/index.ts";
import { type ListenerDeps, tellUser } from "../deps.ts";
import { saveTemplate } from "./speaker-names.ts";

type ViewArgs = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;

/**
 * The `/meeting-notes` modal: a recording (uploaded in the modal or chosen from the
 * channel's recent ones), participants as speaker hints with their real names, context,
 * language, template and where to post. The bot opens a thread in the destination with
 * a message of its own and the job answers there.
 */
export function newNotesSubmitted(deps: ListenerDeps) {
  return async ({ ack, view, body, client }: ViewArgs) => {
    const userId = body.user?.id;
    if (typeof userId !== "string") return void (await ack());
    const slackLocale = (await deps.directory.user(userId)).locale;
    const locale = localeOf(slackLocale);
    const parsed = parseNewNotesSubmission(view.state?.values, locale);
    if (!parsed.ok) {
      await ack({ response_action: "errors", errors: parsed.errors });
      return;
    }
    // The channel the modal was opened from: where problems are told. Checked before the
    // ack, so a form that cannot be traced back is refused in the modal itself.
    const from = parseNewNotesMetadata(String(view.private_metadata ?? ""))?.channelId;
    if (from === undefined) {
      const unreadable = t(locale, "validation.unreadable");
      await ack({ response_action: "errors", errors: { [INPUTS.recording.block]: unreadable } });
      return;
    }
    await ack();
    const tell = (text: string) =>
      tellUser(client, deps.logger, { channel: from, user: userId }, { text, blocks: [] });
    const request = parsed.value;
    const fileId = request.recordingFileId ?? request.recentFileId;
    const file =
      fileId === undefined ? undefined : await deps.directory.file(fileId).catch(() => undefined);
    const source = file === undefined ? undefined : toSourceFile(file);
    if (source === undefined) {
      const name = file?.name ?? fileId ?? "";
      await tell(
        file === undefined
          ? t(locale, "new_notes.file_unreadable")
          : buildRefusal("unsupported_format", name, locale).text,
      );
      return;
    }
    const threadTs = await openThread(
      client,
      request.destinationChannelId,
      source,
      userId,
      locale,
    ).catch(async (error: unknown) => {
      const code = platformErrorOf(error);
      deps.logger.warn({ err: error, code }, "could not open the notes thread");
      await tell(
        t(
          locale,
          code === "not_in_channel" || code === "channel_not_found"
            ? "new_notes.not_in_channel"
            : "new_notes.file_unreadable",
        ),
      );
      return undefined;
    });
    if (threadTs === undefined) return;
    const teamId = body.team?.id ?? body.user.team_id ?? "";
    const result = await deps.jobs.start({
      origin: {
        teamId,
        channelId: request.destinationChannelId,
        threadTs,
        userId,
        ...(slackLocale === undefined ? {} : { locale: slackLocale }),
      },
      source,
      options: await jobOptions(deps, request),
    });
    if (result.status === "refused") {
      const refusal = buildRefusal(result.reason, source.filename, locale);
      await client.chat.postMessage({
        channel: request.destinationChannelId,
        thread_ts: threadTs,
        ...refusal,
      });
    }
  };
}

/** The bot's own message that starts the job's thread. */
async function openThread(
  client: WebClient,
  channel: string,
  source: SourceFile,
  userId: string,
  locale: Locale,
): Promise<string> {
  const text = t(locale, "new_notes.parent", {
    file: `*${safeMrkdwn(source.filename)}*`,
    user: `<@${userId}>`,
  });
  const posted = await client.chat.postMessage({ channel, text, mrkdwn: true });
  if (typeof posted.ts !== "string") throw new Error("chat.postMessage returned no ts");
  return posted.ts;
}

async function jobOptions(deps: ListenerDeps, request: NewNotesSubmission) {
  const members = await Promise.all(request.participantIds.map((id) => deps.directory.user(id)));
  const names = [...members.map((m) => m.name), ...request.extraNames];
  const speakers: SpeakerHint[] = [...new Set(names)].map((name) => ({ name }));
  const templateId =
    request.templateFileId === undefined
      ? undefined
      : await saveTemplate(deps, request.templateFileId);
  return {
    ...(speakers.length === 0 ? {} : { speakers }),
    ...(request.contextText === undefined ? {} : { contextText: request.contextText }),
    ...(request.languageHint === undefined ? {} : { languageHint: request.languageHint }),
    ...(templateId === undefined ? {} : { templateId }),
  };
}
