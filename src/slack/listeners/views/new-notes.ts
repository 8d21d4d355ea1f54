import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from "@slack/bolt";
import type { WebClient } from "@slack/web-api";
import type { SourceFile } from "../../../jobs/index.ts";
import type { SpeakerHint } from "../../../notetaker/index.ts";
import { platformErrorOf } from "../../gateway/slack-errors.ts";
import { INPUTS } from "../../ids.ts";
import { type Locale, localeOf, t } from "../../messages/index.ts";
import { isMediaFile, toSourceFile } from "../../recording-file.ts";
import { safeMrkdwn } from "../../text/index.ts";
import {
  buildRefusal,
  type NewNotesSubmission,
  parseNewNotesMetadata,
  parseNewNotesSubmission,
} from "../../views/index.ts";
import type { ListenerDeps } from "../deps.ts";
import { replyInThread, tellUser } from "../replies.ts";
import {
  chooseTemplate,
  saveTemplate,
  type TemplateChoice,
  templateRefusal,
} from "../save-template.ts";

type ViewArgs = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;

/**
 * The `/meeting-notes` modal: a recording (uploaded in the modal or chosen from the
 * channel's recent ones), participants as speaker hints with their real names, context,
 * language, template and where to post. Before the ack (so problems show in the modal),
 * with membership as Slack has it now: the destination must hold both the requester and
 * the bot, and the recording and the template must each be the requester's own or shared
 * where they are a member (a recent recording: one the modal offered).
 * The bot then opens a thread in the destination with a message of its own and the job
 * answers there.
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
    const metadata = parseNewNotesMetadata(String(view.private_metadata ?? ""));
    if (metadata === undefined) {
      const unreadable = t(locale, "validation.unreadable");
      await ack({ response_action: "errors", errors: { [INPUTS.recording.block]: unreadable } });
      return;
    }
    const request = parsed.value;
    const checked = await checkRequest(deps, request, metadata.recent ?? [], userId, locale);
    if (!checked.ok) {
      await ack({ response_action: "errors", errors: checked.errors });
      return;
    }
    await ack();
    const { source, template } = checked;
    const tell = (text: string) =>
      tellUser(
        client,
        deps.logger,
        { channel: metadata.channelId, user: userId },
        { text, blocks: [] },
      );
    const destination = request.destinationChannelId;
    const threadTs = await openThread(client, destination, source, userId, locale).catch(
      async (error: unknown) => {
        const code = platformErrorOf(error);
        deps.logger.warn({ err: error, code }, "could not open the notes thread");
        const reason =
          code === "not_in_channel" || code === "channel_not_found"
            ? "new_notes.not_in_channel"
            : "new_notes.file_unreadable";
        await tell(t(locale, reason));
        return undefined;
      },
    );
    if (threadTs === undefined) return;
    const teamId = body.team?.id ?? body.user.team_id ?? "";
    const options = await jobOptions(deps, request, template, teamId);
    // The notes go ahead without it, as with the other modals; the person hears why.
    if (template.kind !== "none" && options.templateId === undefined) {
      await tell(t(locale, "template.unreadable"));
    }
    const result = await deps.jobs.start({
      origin: {
        teamId,
        channelId: destination,
        threadTs,
        userId,
        ...(slackLocale === undefined ? {} : { locale: slackLocale }),
      },
      source,
      options,
    });
    if (result.status === "refused") {
      const refusal = buildRefusal(result.reason, source.filename, locale);
      await replyInThread(client, { channel: destination, threadTs }, refusal);
    }
  };
}

type Checked =
  | { ok: true; source: SourceFile; template: TemplateChoice }
  | { ok: false; errors: Record<string, string> };

/**
 * What needs Slack to judge, asked together: the recording (`files.info`) and whether the
 * requester may use it, the same for the template, and whether the destination holds both
 * them and the bot.
 */
async function checkRequest(
  deps: ListenerDeps,
  request: NewNotesSubmission,
  offered: readonly string[],
  userId: string,
  locale: Locale,
): Promise<Checked> {
  const recent = request.recentFileId !== undefined;
  const fileBlock = recent ? INPUTS.recentRecording.block : INPUTS.recording.block;
  const fileId = request.recordingFileId ?? request.recentFileId ?? "";
  if (recent && !offered.includes(fileId)) {
    return { ok: false, errors: { [fileBlock]: t(locale, "permission.recent") } };
  }
  const [{ file, mayUse }, destination, template] = await Promise.all([
    readRecording(deps, fileId, userId),
    deps.permissions.destination(request.destinationChannelId, userId),
    chooseTemplate(deps, request.templateFileId, userId),
  ]);
  const errors: Record<string, string> = template.kind === "refused" ? templateRefusal(locale) : {};
  if (destination !== undefined) {
    errors[INPUTS.destination.block] = t(locale, `permission.destination.${destination}`);
  }
  let source: SourceFile | undefined;
  if (file === undefined) {
    errors[fileBlock] = t(locale, "new_notes.file_unreadable");
  } else if (!mayUse) {
    errors[fileBlock] = t(locale, "permission.recording");
  } else {
    source = toSourceFile(file, deps.jobs.canPrepare);
    if (source === undefined) {
      const name = file.name ?? file.title ?? fileId;
      const reason = isMediaFile(file) ? "needs_ffmpeg" : "unsupported_format";
      errors[fileBlock] = buildRefusal(reason, name, locale).text;
    }
  }
  if (source === undefined || Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, source, template };
}

/** The recording as `files.info` describes it, and whether the requester may use it. */
async function readRecording(deps: ListenerDeps, fileId: string, userId: string) {
  const file = await deps.directory.file(fileId);
  return { file, mayUse: file !== undefined && (await deps.permissions.file(file, userId)) };
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

async function jobOptions(
  deps: ListenerDeps,
  request: NewNotesSubmission,
  template: TemplateChoice,
  teamId: string,
) {
  const members = await Promise.all(request.participantIds.map((id) => deps.directory.user(id)));
  const names = [...members.map((m) => m.name), ...request.extraNames];
  const speakers: SpeakerHint[] = [...new Set(names)].map((name) => ({ name }));
  const templateId = await saveTemplate(deps, template, {
    teamId,
    channelId: request.destinationChannelId,
  });
  return {
    ...(speakers.length === 0 ? {} : { speakers }),
    ...(request.contextText === undefined ? {} : { contextText: request.contextText }),
    ...(request.languageHint === undefined ? {} : { languageHint: request.languageHint }),
    ...(templateId === undefined ? {} : { templateId }),
  };
}
