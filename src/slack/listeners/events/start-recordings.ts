import type { WebClient } from "@slack/web-api";
import type { Origin } from "../../../jobs/index.ts";
import { safeFileName } from "../../../notetaker/index.ts";
import { localeOf } from "../../messages/index.ts";
import { needsFileInfo, type SlackFile, toSourceFile } from "../../recording-file.ts";
import { buildRefusal, buildSkippedFiles, type MessageContent } from "../../views/index.ts";
import type { ListenerDeps } from "../deps.ts";

export interface SharedFiles {
  teamId: string;
  channelId: string;
  userId: string;
  /** The thread to answer in: the upload's own message, or the thread it was posted in. */
  threadTs: string;
  /** Typed with the upload: it becomes the context of the notes. */
  text: string | undefined;
  files: SlackFile[];
}

/**
 * The upload journey: each supported recording of a message becomes a job (once, however
 * often Slack delivers the event); the others are explained in the thread. The channel's
 * settings apply, and nothing happens in a channel that turned automatic notes off.
 */
export async function startRecordings(
  deps: ListenerDeps,
  client: WebClient,
  shared: SharedFiles,
): Promise<void> {
  const settings = await deps.jobs.getChannelSettings(shared.teamId, shared.channelId);
  if (!settings.autoTranscribe) return;
  const { locale: slackLocale } = await deps.directory.user(shared.userId);
  const locale = localeOf(slackLocale);
  const origin: Origin = {
    teamId: shared.teamId,
    channelId: shared.channelId,
    threadTs: shared.threadTs,
    userId: shared.userId,
    ...(slackLocale === undefined ? {} : { locale: slackLocale }),
  };
  const contextText = [settings.contextText, shared.text?.trim()].filter(Boolean).join("\n\n");
  const options = {
    ...(contextText === "" ? {} : { contextText }),
    ...(settings.languageHint === undefined ? {} : { languageHint: settings.languageHint }),
    ...(settings.templateId === undefined ? {} : { templateId: settings.templateId }),
  };
  const skipped: string[] = [];
  let started = 0;
  for (const shown of shared.files) {
    // Each file on its own: one that Slack cannot describe must not cost the others.
    try {
      const file = needsFileInfo(shown) ? ((await deps.directory.file(shown.id)) ?? shown) : shown;
      const source = toSourceFile(file);
      if (source === undefined) {
        const key = `notice:${shared.teamId}:${shared.channelId}:${file.id}`;
        // Named as a job would name it: no path, no hidden characters.
        const name = safeFileName(file.name || file.title || file.id);
        if (await deps.jobs.claimOnce(key)) skipped.push(name);
        continue;
      }
      const result = await deps.jobs.start({ origin, source, options });
      if (result.status === "created") started++;
      if (result.status === "refused") {
        await reply(client, shared, buildRefusal(result.reason, source.filename, locale));
      }
    } catch (error) {
      deps.logger.error({ err: error, fileId: shown.id }, "could not take a shared file");
    }
  }
  if (skipped.length === 0) return;
  // With recordings under way, a list of what was skipped; otherwise the plain refusal.
  await reply(
    client,
    shared,
    started > 0
      ? buildSkippedFiles(skipped, locale)
      : buildRefusal("unsupported_format", skipped.join(", "), locale),
  );
}

async function reply(client: WebClient, shared: SharedFiles, content: MessageContent) {
  await client.chat.postMessage({
    channel: shared.channelId,
    thread_ts: shared.threadTs,
    text: content.text,
    blocks: content.blocks,
  });
}
