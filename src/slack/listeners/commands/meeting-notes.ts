import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from "@slack/bolt";
import type { ModalView } from "@slack/types";
import { z } from "zod";
import { isActive, isStoreUnavailable } from "../../../jobs/index.ts";
import { VIEWS } from "../../ids.ts";
import { requestTenant } from "../../installs/request-tenant.ts";
import { type Locale, localeOf, t } from "../../messages/catalog.ts";
import {
  buildCancelReply,
  buildChannelStatus,
  buildHelpMessage,
  buildPermissionRefusal,
  buildUnknownCommand,
} from "../../views/command-replies.ts";
import type { MessageContent } from "../../views/message-content.ts";
import { buildNewNotesModal, newNotesIdentity } from "../../views/new-notes-modal.ts";
import { buildNoticeModal, type ModalIdentity, sentenceReply } from "../../views/notice-modal.ts";
import { buildSettingsModal } from "../../views/settings-modal.ts";
import type { ListenerDeps } from "../deps.ts";
import { openThenFill } from "../open-modal.ts";
import { recentRecordings } from "./recent-recordings.ts";

type CommandArgs = SlackCommandMiddlewareArgs & AllMiddlewareArgs;

/** Slack always sends them all; the workspace is the request's tenant, from Bolt's context. */
const commandSchema = z.object({
  text: z.string(),
  user_id: z.string().min(1),
  channel_id: z.string().min(1),
  response_url: z.string().min(1),
  trigger_id: z.string().min(1),
});
type Command = z.infer<typeof commandSchema>;

/** `/meeting-notes [help | status | settings | cancel]`; no argument opens the new-notes modal. */
export function meetingNotesCommand(deps: ListenerDeps) {
  return async (args: CommandArgs) => {
    const { ack } = args;
    const parsed = commandSchema.safeParse(args.command);
    if (!parsed.success) {
      // Acked at once, or Slack shows a timeout; there is no one to tell.
      await ack();
      deps.logger.warn({ issues: parsed.error.issues.length }, "a malformed slash command");
      return;
    }
    const command = parsed.data;
    const [word = "", ...rest] = command.text.trim().split(/\s+/);
    const sub = word.toLowerCase();
    // With the person's locale cached, help rides on the ack: no second request to response_url.
    const known = deps.directory.cachedUser(command.user_id);
    if (known !== undefined && !SUBCOMMANDS_WITH_WORK.has(sub)) {
      await ack({
        response_type: "ephemeral",
        ...instantReply(word, localeOf(known.locale), deps),
      });
      return;
    }
    await ack();
    // Before any look-up: a trigger_id is good for 3 seconds.
    if (sub === "" || sub === "settings") return openModal(deps, command, sub);
    const locale = localeOf((await deps.directory.user(command.user_id)).locale);
    const reply = (content: MessageContent) => deps.respond(command.response_url, content);
    try {
      if (sub === "status") {
        const jobs = await deps.jobs.listByChannel(requestTenant(), command.channel_id);
        return reply(buildChannelStatus(jobs, { locale, now: deps.now() }));
      }
      if (sub === "cancel") return reply(await cancel(deps, command, rest[0], locale));
      return reply(instantReply(word, locale, deps));
    } catch (error) {
      // Slack sends a command once: the person hears why nothing happened.
      if (!isStoreUnavailable(error)) throw error;
      deps.logger.warn({ err: error }, "store failed: a command was not carried out");
      return reply(sentenceReply(t(locale, "store.unavailable")));
    }
  };
}

/** When Slack would not open the modal (a trigger past its 3 seconds), the person hears so. */
function openModal(deps: ListenerDeps, command: Command, sub: "" | "settings"): Promise<void> {
  const userId = command.user_id;
  const identity = (locale: Locale) => modalIdentity(command.channel_id, sub, locale);
  return openThenFill(deps, {
    triggerId: command.trigger_id,
    userId,
    identity,
    fill: () => {
      // The language and what the modal needs from Slack, asked together.
      const locale = deps.directory.user(userId).then((user) => localeOf(user.locale));
      return sub === ""
        ? newNotesModal(deps, command, locale)
        : settingsModal(deps, command, locale, identity);
    },
    tell: (content) => deps.respond(command.response_url, content),
  });
}

/** The same from its loading view on. */
function modalIdentity(channelId: string, sub: "" | "settings", locale: Locale): ModalIdentity {
  if (sub === "") return newNotesIdentity(channelId, locale);
  return {
    callbackId: VIEWS.channelSettings,
    privateMetadata: JSON.stringify({ channelId, locale }),
    title: t(locale, "modal.settings.title"),
  };
}

async function newNotesModal(
  deps: ListenerDeps,
  command: Command,
  language: Promise<Locale>,
): Promise<ModalView> {
  const channelId = command.channel_id;
  // Ticked at first where the channel's settings ask for review.
  const review = deps.settings.get(requestTenant(), channelId).then(
    (settings) => settings.review,
    () => false,
  );
  const [locale, recent, reviewed] = await Promise.all([
    language,
    recentRecordings(deps, channelId),
    review,
  ]);
  return buildNewNotesModal({
    locale,
    channelId,
    recentRecordings: recent.recordings,
    recentBusy: recent.busy,
    review: reviewed,
  });
}

/** For anyone but a non-guest member of the channel, says who may. */
async function settingsModal(
  deps: ListenerDeps,
  command: Command,
  language: Promise<Locale>,
  identity: (locale: Locale) => ModalIdentity,
): Promise<ModalView> {
  const { channel_id: channelId, user_id: userId } = command;
  const [locale, allowed] = await Promise.all([
    language,
    deps.permissions.channelSettings(channelId, userId),
  ]);
  if (!allowed.ok) {
    const refusal = buildPermissionRefusal(allowed.reason, "settings", locale);
    return buildNoticeModal(identity(locale), locale, [refusal]);
  }
  const settings = await deps.settings.get(requestTenant(), channelId);
  return buildSettingsModal(settings, { locale, channelId });
}

const SUBCOMMANDS_WITH_WORK = new Set(["", "status", "settings", "cancel"]);

function instantReply(word: string, locale: Locale, deps: ListenerDeps): MessageContent {
  const options = { canPrepare: deps.jobs.canPrepare };
  return word.toLowerCase() === "help"
    ? buildHelpMessage(locale, options)
    : buildUnknownCommand(word, locale, options);
}

/** The given job of this channel, or its newest active one, the person's own first. */
async function cancel(
  deps: ListenerDeps,
  command: Command,
  jobId: string | undefined,
  locale: Locale,
): Promise<MessageContent> {
  const jobs = await deps.jobs.listByChannel(requestTenant(), command.channel_id);
  const running = jobs.filter((job) => isActive(job) && (jobId === undefined || job.id === jobId));
  const target = running.find((job) => job.origin.userId === command.user_id) ?? running[0];
  if (target === undefined) return buildCancelReply(undefined, locale);
  const allowed = await deps.permissions.jobAction("cancel", target, command.user_id);
  if (!allowed.ok) return buildPermissionRefusal(allowed.reason, "cancel", locale);
  const result = await deps.jobs.cancel(target.id, command.user_id);
  return buildCancelReply(result.ok ? target : undefined, locale);
}
