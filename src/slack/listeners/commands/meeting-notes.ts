import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from "@slack/bolt";
import type { WebClient } from "@slack/web-api";
import { z } from "zod";
import { isActive } from "../../../jobs/index.ts";
import { type Locale, localeOf } from "../../messages/index.ts";
import { slackFileSchema, toSourceFile } from "../../recording-file.ts";
import {
  buildCancelReply,
  buildChannelStatus,
  buildHelpMessage,
  buildNewNotesModal,
  buildPermissionRefusal,
  buildSettingsModal,
  buildUnknownCommand,
  type MessageContent,
  type RecentRecording,
} from "../../views/index.ts";
import type { ListenerDeps } from "../deps.ts";

type CommandArgs = SlackCommandMiddlewareArgs & AllMiddlewareArgs;

/** The fields of a slash command's form the bot reads; Slack always sends them all. */
const commandSchema = z.object({
  text: z.string(),
  user_id: z.string().min(1),
  channel_id: z.string().min(1),
  team_id: z.string().min(1),
  response_url: z.string().min(1),
  trigger_id: z.string().min(1),
});
type Command = z.infer<typeof commandSchema>;

const RECENT_LIMIT = 10;

/**
 * `/meeting-notes [help | status | settings | cancel]`. With no argument it opens the
 * new-notes modal. Replies are ephemeral: only the person who typed the command sees them.
 */
export function meetingNotesCommand(deps: ListenerDeps) {
  return async (args: CommandArgs) => {
    const { ack, client } = args;
    const parsed = commandSchema.safeParse(args.command);
    if (!parsed.success) {
      // Not a form Slack sends: answered at once (Slack would otherwise show a timeout),
      // with nothing to say to a person we cannot name.
      await ack();
      deps.logger.warn({ issues: parsed.error.issues.length }, "a malformed slash command");
      return;
    }
    const command = parsed.data;
    const [word = "", ...rest] = command.text.trim().split(/\s+/);
    const sub = word.toLowerCase();
    // Help and unknown words need nothing but the person's locale: when it is cached, the
    // answer rides on the ack — one response, no second request to response_url.
    const known = deps.directory.cachedUser(command.user_id);
    if (known !== undefined && !SUBCOMMANDS_WITH_WORK.has(sub)) {
      await ack({ response_type: "ephemeral", ...instantReply(word, localeOf(known.locale)) });
      return;
    }
    // Acked before anything else: Slack gives a command 3 seconds.
    await ack();
    const locale = localeOf((await deps.directory.user(command.user_id)).locale);
    const reply = (content: MessageContent) => deps.respond(command.response_url, content);
    switch (sub) {
      case "":
        await client.views.open({
          trigger_id: command.trigger_id,
          view: buildNewNotesModal({
            locale,
            channelId: command.channel_id,
            recentRecordings: await recentRecordings(
              client,
              command.channel_id,
              deps.jobs.canPrepare,
            ),
          }),
        });
        return;
      case "status": {
        const jobs = await deps.jobs.listByChannel(command.team_id, command.channel_id);
        return reply(buildChannelStatus(jobs, { locale, now: deps.now() }));
      }
      case "settings": {
        const allowed = await deps.permissions.channelSettings(command.channel_id, command.user_id);
        if (!allowed.ok) return reply(buildPermissionRefusal(allowed.reason, "settings", locale));
        const settings = await deps.jobs.getChannelSettings(command.team_id, command.channel_id);
        await client.views.open({
          trigger_id: command.trigger_id,
          view: buildSettingsModal(settings, { locale, channelId: command.channel_id }),
        });
        return;
      }
      case "cancel":
        return reply(await cancel(deps, command, rest[0], locale));
      default:
        return reply(instantReply(word, locale));
    }
  };
}

/** Subcommands that read the store or open a modal; the rest answer from the catalog. */
const SUBCOMMANDS_WITH_WORK = new Set(["", "status", "settings", "cancel"]);

/** Help, or "unknown subcommand" quoting the word as typed. */
function instantReply(word: string, locale: Locale): MessageContent {
  return word.toLowerCase() === "help"
    ? buildHelpMessage(locale)
    : buildUnknownCommand(word, locale);
}

/**
 * Cancels the given job of this channel, or its newest active one, when the person may
 * (they started it, or they are a workspace admin).
 */
async function cancel(
  deps: ListenerDeps,
  command: Command,
  jobId: string | undefined,
  locale: Locale,
): Promise<MessageContent> {
  const jobs = await deps.jobs.listByChannel(command.team_id, command.channel_id);
  const running = jobs.filter((job) => isActive(job) && (jobId === undefined || job.id === jobId));
  // Without an id: the person's own newest job first, else the channel's newest.
  const target = running.find((job) => job.origin.userId === command.user_id) ?? running[0];
  if (target === undefined) return buildCancelReply(undefined, locale);
  const allowed = await deps.permissions.jobAction("cancel", target, command.user_id);
  if (!allowed.ok) return buildPermissionRefusal(allowed.reason, "cancel", locale);
  const result = await deps.jobs.cancel(target.id, command.user_id);
  return buildCancelReply(result.ok ? target : undefined, locale);
}

/** Recordings posted in the channel lately, for the modal's "recent recording" list. */
async function recentRecordings(
  client: WebClient,
  channel: string,
  canPrepare: boolean,
): Promise<RecentRecording[]> {
  try {
    const history = await client.conversations.history({ channel, limit: 100 });
    const recordings: RecentRecording[] = [];
    for (const message of history.messages ?? []) {
      for (const raw of message.files ?? []) {
        const file = slackFileSchema.safeParse(raw);
        const source = file.success ? toSourceFile(file.data, canPrepare) : undefined;
        if (source === undefined || recordings.some((r) => r.fileId === source.fileId)) continue;
        // The safe name, as the job will have it.
        recordings.push({ fileId: source.fileId, name: source.filename });
      }
    }
    return recordings.slice(0, RECENT_LIMIT);
  } catch {
    // Not in the channel, or no history scope there: the modal still takes an upload.
    return [];
  }
}
