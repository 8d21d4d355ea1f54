import { randomUUID } from "node:crypto";
import {
  isStoreUnavailable,
  type JobOptions,
  type Origin,
  type SourceFile,
  StartNotRecorded,
} from "../../../jobs/index.ts";
import { pickedRecording } from "../../directory/recording-file.ts";
import { platformErrorOf } from "../../gateway/slack-errors.ts";
import { INPUTS } from "../../ids.ts";
import { requestOrigin } from "../../installs/request-tenant.ts";
import { type Locale, t } from "../../messages/catalog.ts";
import type { MessageContent } from "../../views/message-content.ts";
import { sentenceReply } from "../../views/notice-modal.ts";
import {
  type NewNotesSubmission,
  parseNewNotesSubmission,
} from "../../views/parse-new-notes-submission.ts";
import { buildRefusal } from "../../views/thread-replies.ts";
import type { ListenerDeps } from "../deps.ts";
import { chooseTemplate, type TemplateChoice, templateRefusal } from "../save-template.ts";
import { answerInTime, type Verdict, type ViewArgs } from "./answer-in-time.ts";
import { type ReadSubmission, readSubmission } from "./modal-submission.ts";
import { alreadyBeingMade, jobOptions, mentionChannel, openThread } from "./new-notes-job.ts";

type Request = ReadSubmission<NewNotesSubmission>;

interface Checked {
  source: SourceFile;
  template: TemplateChoice;
}

/**
 * Within the ack's 3 seconds ({@link answerInTime}), membership is checked as Slack has it now:
 * the modal may be old. One thread and job per recording and destination, however often asked.
 */
export function newNotesSubmitted(deps: ListenerDeps, options: { decisionMs?: number } = {}) {
  return async (args: ViewArgs) => {
    const read = await readSubmission(deps, args, {
      parse: parseNewNotesSubmission,
      unreadableBlock: INPUTS.recording.block,
      title: "modal.new_notes.title",
      decisionMs: options.decisionMs,
    });
    if (read === undefined) return;
    const notOffered = checkOffered(read);
    if (notOffered !== undefined) {
      return void (await args.ack({ response_action: "errors", errors: notOffered }));
    }
    await answerInTime({
      ...read.answer,
      check: () => checkRequest(deps, read),
      proceed: (checked, tell) => startNotes(deps, read, checked, tell),
    });
  };
}

/** Said on the select if the modal had one, else on the upload input: errors name shown blocks. */
function checkOffered({ value, metadata, locale }: Request): Record<string, string> | undefined {
  const fileId = value.recentFileId;
  const offered = metadata.recent ?? [];
  if (fileId === undefined || offered.includes(fileId)) return undefined;
  const block = offered.length > 0 ? INPUTS.recentRecording.block : INPUTS.recording.block;
  return { [block]: t(locale, "permission.recent") };
}

async function checkRequest(deps: ListenerDeps, read: Request): Promise<Verdict<Checked>> {
  const { value: request, userId, locale } = read;
  const recent = request.recentFileId !== undefined;
  const fileBlock = recent ? INPUTS.recentRecording.block : INPUTS.recording.block;
  const fileId = request.recordingFileId ?? request.recentFileId ?? "";
  const [recording, destination, template] = await Promise.all([
    readRecording(deps, fileId, userId, locale),
    deps.permissions.destination(request.destinationChannelId, userId),
    chooseTemplate(deps, request.templateFileId, userId),
  ]);
  const errors: Record<string, string> = template.kind === "refused" ? templateRefusal(locale) : {};
  if (destination !== undefined) {
    errors[INPUTS.destination.block] = t(locale, `permission.destination.${destination}`);
  }
  if (!recording.ok) errors[fileBlock] = recording.error;
  if (!recording.ok || Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, value: { source: recording.source, template } };
}

/** Else why not, as a field error. */
async function readRecording(
  deps: ListenerDeps,
  fileId: string,
  userId: string,
  locale: Locale,
): Promise<{ ok: true; source: SourceFile } | { ok: false; error: string }> {
  const file = await deps.directory.file(fileId);
  if (file === undefined) return { ok: false, error: t(locale, "new_notes.file_unreadable") };
  if (!(await deps.permissions.file(file, userId))) {
    return { ok: false, error: t(locale, "permission.recording") };
  }
  const picked = pickedRecording(file, deps.jobs.canPrepare);
  if (picked.source === undefined) {
    const name = file.name ?? file.title ?? fileId;
    return { ok: false, error: buildRefusal(picked.reason, name, locale).text };
  }
  return { ok: true, source: picked.source };
}

/** After the ack: failures are told; the success sentence is for a modal still on screen. */
async function startNotes(
  deps: ListenerDeps,
  { value: request, metadata, userId, locale }: Request,
  checked: Checked,
  tell: (reply: MessageContent) => Promise<void>,
): Promise<MessageContent | undefined> {
  const destination = request.destinationChannelId;
  // The message shortcut's thread while the destination is still its channel; else a new one.
  const shortcutThread = destination === metadata.channelId ? metadata.threadTs : undefined;
  const slackLocale = (await deps.directory.user(userId)).locale;
  const options = await jobOptions(deps, request, checked.template);
  const origin = {
    ...requestOrigin(),
    channelId: destination,
    userId,
    ...(slackLocale ? { locale: slackLocale } : {}),
  };
  let threadTs: string | undefined;
  const start = { origin, source: checked.source, options };
  const result = await deps.jobs
    .startInThread(start, async () => {
      threadTs =
        shortcutThread ?? (await openThread(deps, destination, checked.source, userId, locale));
      return threadTs;
    })
    .catch(async (error: unknown) => {
      if (isStoreUnavailable(error)) {
        const kept = await keepThreadStart(deps, error, { ...start, threadTs });
        await tell(
          kept
            ? mentionChannel(locale, "new_notes.pending", destination)
            : sentenceReply(t(locale, "store.unavailable")),
        );
        return undefined;
      }
      const code = platformErrorOf(error);
      deps.logger.warn({ err: error, code }, "could not open the notes thread");
      const notIn = code === "not_in_channel" || code === "channel_not_found";
      await tell(
        sentenceReply(t(locale, notIn ? "new_notes.not_in_channel" : "new_notes.file_unreadable")),
      );
      return undefined;
    });
  if (result === undefined) return undefined;
  if (result.status === "duplicate") {
    const at = { channelId: destination, fileId: checked.source.fileId };
    await tell(await alreadyBeingMade(deps, at, locale));
    return undefined;
  }
  if (result.status === "refused") {
    await tell(buildRefusal(result.reason, checked.source.filename, locale));
    return undefined;
  }
  // The notes go ahead without it; the person hears why.
  if (checked.template.kind !== "none" && options.templateId === undefined) {
    await tell(sentenceReply(t(locale, "template.unreadable")));
  }
  return mentionChannel(locale, "new_notes.started", destination);
}

/** False when the thread was not open yet (nothing started) or the journal could not keep it. */
async function keepThreadStart(
  deps: ListenerDeps,
  error: unknown,
  start: {
    origin: Omit<Origin, "threadTs">;
    source: SourceFile;
    options: JobOptions;
    threadTs: string | undefined;
  },
): Promise<boolean> {
  const { threadTs, ...job } = start;
  if (!(error instanceof StartNotRecorded) || threadTs === undefined) return false;
  deps.logger.warn({ err: error }, "store failed: a new-notes job is kept for later");
  return deps.pending.keep({
    kind: "thread",
    id: randomUUID(),
    at: deps.now(),
    ...job,
    origin: { ...job.origin, threadTs },
    attempt: error.attempt,
  });
}
