import type { Job, JobOptions, SourceFile } from "../../../jobs/index.ts";
import type { SpeakerHint } from "../../../notetaker/index.ts";
import { optional } from "../../../util/optional.ts";
import { requestTenant } from "../../installs/request-tenant.ts";
import { type Locale, t } from "../../messages/catalog.ts";
import { safeMrkdwn } from "../../text/neutralize-mentions.ts";
import { section } from "../../views/block-kit.ts";
import type { MessageContent } from "../../views/message-content.ts";
import type { NewNotesSubmission } from "../../views/parse-new-notes-submission.ts";
import type { ListenerDeps } from "../deps.ts";
import { saveTemplate, type TemplateChoice } from "../save-template.ts";

/** Review is on when ticked or when the destination's settings ask for it. */
export async function jobOptions(
  deps: ListenerDeps,
  request: NewNotesSubmission,
  template: TemplateChoice,
): Promise<JobOptions> {
  const members = await Promise.all(request.participantIds.map((id) => deps.directory.user(id)));
  const names = [...members.map((m) => m.name), ...request.extraNames];
  const speakers: SpeakerHint[] = [...new Set(names)].map((name) => ({ name }));
  const tenant = requestTenant();
  const templateId = await saveTemplate(deps, template, {
    teamId: tenant,
    channelId: request.destinationChannelId,
  });
  const review =
    request.review === true ||
    (await deps.settings.get(tenant, request.destinationChannelId)).review;
  return {
    ...(speakers.length === 0 ? {} : { speakers }),
    ...optional("contextText", request.contextText),
    ...optional("languageHint", request.languageHint),
    ...optional("templateId", templateId),
    ...(review ? { review: true } : {}),
  };
}

/** A conversation id from `conversations_select`, safe to link as `<#id>`. */
const CONVERSATION_ID = /^[CGD][A-Z0-9]{2,}$/;

function channelLink(channelId: string): string {
  return CONVERSATION_ID.test(channelId) ? `<#${channelId}>` : safeMrkdwn(channelId);
}

export function mentionChannel(
  locale: Locale,
  key: "new_notes.started" | "new_notes.already" | "new_notes.pending",
  channelId: string,
): MessageContent {
  const text = t(locale, key, { channel: channelLink(channelId) });
  return { text, blocks: [section(text)] };
}

/** How long a request that found the recording claimed waits for the claimant's job. */
const CLAIMANT_WAIT_MS = 5_000;
const CLAIMANT_POLL_MS = 100;

/** The claimant may still be opening its thread, so it waits a few seconds; else the channel. */
export async function alreadyBeingMade(
  deps: ListenerDeps,
  at: { channelId: string; fileId: string },
  locale: Locale,
): Promise<MessageContent> {
  const job = await claimant(deps, at);
  const link =
    job === undefined
      ? undefined
      : await deps.directory.permalink(job.origin.channelId, job.origin.threadTs);
  // A link Slack gave, kept only when it cannot break out of `<url|text>`.
  if (link === undefined || !/^https:\/\/[^\s<>|]+$/.test(link)) {
    return mentionChannel(locale, "new_notes.already", at.channelId);
  }
  const text = t(locale, "new_notes.already_thread", {
    channel: channelLink(at.channelId),
    url: link,
  });
  return { text, blocks: [section(text)] };
}

async function claimant(
  deps: ListenerDeps,
  at: { channelId: string; fileId: string },
): Promise<Job | undefined> {
  const until = Date.now() + CLAIMANT_WAIT_MS;
  for (;;) {
    const jobs = await deps.jobs.listByChannel(requestTenant(), at.channelId).catch(() => []);
    const mine = jobs.filter((j) => j.source.fileId === at.fileId);
    const newest = mine.toSorted((a, b) => b.createdAt - a.createdAt)[0];
    if (newest !== undefined || Date.now() >= until) return newest;
    await new Promise((resolve) => setTimeout(resolve, CLAIMANT_POLL_MS));
  }
}

/** A Workflow step's too. */
export async function openThread(
  deps: ListenerDeps,
  channel: string,
  source: SourceFile,
  userId: string,
  locale: Locale,
): Promise<string> {
  const text = t(locale, "new_notes.parent", {
    file: `*${safeMrkdwn(source.filename)}*`,
    user: `<@${userId}>`,
  });
  return deps.responder.startThread(channel, text);
}
