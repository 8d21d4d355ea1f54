import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from "@slack/bolt";
import type { Logger } from "pino";
import { z } from "zod";
import {
  isStoreUnavailable,
  type JobOptions,
  SLACK_USER_ID,
  type SourceFile,
  uploadOptions,
} from "../../../jobs/index.ts";
import type { SpeakerHint } from "../../../notetaker/index.ts";
import { type StartRefusal, SUPPORTED_AUDIO_FORMATS } from "../../../recordings/index.ts";
import { BACKOFFS, backoffDelayMs, retry } from "../../../util/backoff.ts";
import { pickedRecording } from "../../directory/recording-file.ts";
import { platformErrorOf, toGatewayError } from "../../gateway/slack-errors.ts";
import { requestOrigin, requestTenant, requestWorkspace } from "../../installs/request-tenant.ts";
import { type Locale, localeOf, t } from "../../messages/catalog.ts";
import { clampText } from "../../text/clamp-text.ts";
import { neutralizeMentions as asPlain } from "../../text/neutralize-mentions.ts";
import { buildRefusal } from "../../views/thread-replies.ts";
import type { ListenerDeps } from "../deps.ts";
import { openThread } from "../views/new-notes-job.ts";

/** A meeting's participants, not a channel's. */
const MAX_PARTICIPANTS = 50;
const MAX_FILENAME_CHARS = 200;
const MAX_CONTEXT_CHARS = 3_000;

/**
 * Checked here: an admin's workflow fills them, not Slack. `user` is a `user_context` only
 * Workflow Builder sets (https://docs.slack.dev/reference/types/user_context-type), so a
 * workflow cannot name someone who did not act in it.
 */
const inputsSchema = z.object({
  recording: z.string().regex(/^F[A-Z0-9]{2,}$/),
  channel: z.string().regex(/^[CG][A-Z0-9]{2,}$/),
  user: z.looseObject({ id: z.string().regex(SLACK_USER_ID) }),
  participants: z.array(z.string().regex(SLACK_USER_ID)).max(MAX_PARTICIPANTS).optional(),
  context: z.string().max(MAX_CONTEXT_CHARS).optional(),
});
type StepInputs = z.infer<typeof inputsSchema>;

type Args = SlackEventMiddlewareArgs<"function_executed"> & AllMiddlewareArgs;

/**
 * An ordinary job in a thread the bot opens, with the modal's checks. The step ends here, as its
 * token lives 15 minutes (https://github.com/slackapi/bolt-python/issues/1075); notes follow
 * in the thread.
 */
export function makeMeetingNotes(deps: ListenerDeps) {
  return async ({ event, inputs, complete, fail }: Args) => {
    const executionId = event.function_execution_id;
    const logger = deps.logger.child({ executionId });
    let locale: Locale = "en";
    const refuse = async (sentence: string, why: string) => {
      logger.info({ why }, "workflow step refused");
      await fail({ error: sentence }).catch((error: unknown) =>
        logger.warn({ err: error, code: platformErrorOf(error) }, "could not fail the step"),
      );
    };
    try {
      if (!(await deps.jobs.claimOnce(`workflow-step:${executionId}`))) return;
      const parsed = inputsSchema.safeParse(inputs);
      if (!parsed.success) return await refuse(t(locale, "step.inputs"), "inputs");
      const request = parsed.data;
      const userId = request.user.id;
      const slackLocale = (await deps.directory.user(userId)).locale;
      locale = localeOf(slackLocale);
      if (requestWorkspace() === undefined) {
        return await refuse(t(locale, "step.inputs"), "no team");
      }
      const checked = await check(deps, request, locale);
      if (!checked.ok) return await refuse(checked.sentence, checked.why);
      const options = await stepOptions(deps, request);
      const origin = {
        ...requestOrigin(),
        channelId: request.channel,
        userId,
        ...(slackLocale ? { locale: slackLocale } : {}),
        kind: "workflow" as const,
        executionId,
      };
      const result = await deps.jobs.startInThread(
        { origin, source: checked.source, options },
        () => openThread(deps, request.channel, checked.source, userId, locale),
      );
      if (result.status === "duplicate") return await refuse(t(locale, "step.already"), "dup");
      if (result.status === "refused") {
        const sentence = refusalSentence(result.reason, checked.source.filename, locale);
        return await refuse(sentence, result.reason);
      }
      logger.info({ jobId: result.job.id }, "workflow step started a job");
      const link = await deps.directory.permalink(request.channel, result.job.origin.threadTs);
      if (link === undefined) return await refuse(t(locale, "step.no_link"), "no link");
      await completeStep(() => complete({ outputs: { thread_link: link } }), logger);
    } catch (error) {
      if (isStoreUnavailable(error)) {
        logger.warn({ err: error }, "store failed: the workflow step started nothing");
        return await refuse(t(locale, "step.store_unavailable"), "store");
      }
      logger.warn({ err: error, code: platformErrorOf(error) }, "workflow step failed to start");
      await refuse(t(locale, "step.thread_failed"), "thread");
    }
  };
}

const COMPLETE_TRIES = 3;

/** A few tries now, never later: the step's token lives minutes. "Not running": one was taken. */
async function completeStep(send: () => Promise<unknown>, logger: Logger): Promise<void> {
  const again = (error: unknown, failures: number) =>
    platformErrorOf(error) !== NOT_RUNNING &&
    toGatewayError(error, "functions.completeSuccess").transient &&
    failures + 1 < COMPLETE_TRIES
      ? backoffDelayMs(BACKOFFS.slackResend, failures)
      : undefined;
  await retry(send, again).catch((error: unknown) => {
    const code = platformErrorOf(error);
    if (code !== NOT_RUNNING)
      logger.warn({ err: error, code }, "could not complete the workflow step");
  });
}

const NOT_RUNNING = "execution_not_in_running_state";

/** An upload's words, but for a format, which an upload's reply says in two sentences. */
function refusalSentence(reason: StartRefusal, filename: string, locale: Locale): string {
  if (reason !== "unsupported_format") return buildRefusal(reason, filename, locale).text;
  return t(locale, "step.not_a_recording", {
    file: asPlain(clampText(filename, MAX_FILENAME_CHARS)),
    formats: SUPPORTED_AUDIO_FORMATS.join(", "),
  });
}

type Checked = { ok: true; source: SourceFile } | { ok: false; sentence: string; why: string };

async function check(deps: ListenerDeps, request: StepInputs, locale: Locale): Promise<Checked> {
  const userId = request.user.id;
  const [file, destination] = await Promise.all([
    deps.directory.file(request.recording),
    deps.permissions.destination(request.channel, userId),
  ]);
  if (file === undefined) {
    return { ok: false, sentence: t(locale, "step.recording_unreadable"), why: "unreadable" };
  }
  if (!(await deps.permissions.file(file, userId))) {
    return { ok: false, sentence: t(locale, "step.recording_not_theirs"), why: "not theirs" };
  }
  const { source, reason } = pickedRecording(file, deps.jobs.canPrepare);
  if (source === undefined) {
    const name = file.name ?? file.title ?? request.recording;
    return { ok: false, sentence: refusalSentence(reason, name, locale), why: reason };
  }
  if (destination !== undefined) {
    return { ok: false, sentence: t(locale, DESTINATION_KEYS[destination]), why: destination };
  }
  return { ok: true, source };
}

const DESTINATION_KEYS = {
  bot_not_in: "step.bot_not_in",
  user_not_in: "step.user_not_in",
  unknown: "step.channel_unknown",
} as const;

/** As an upload to the channel would have, plus the step's context and participants as hints. */
async function stepOptions(deps: ListenerDeps, request: StepInputs): Promise<JobOptions> {
  const settings = await deps.settings.get(requestTenant(), request.channel);
  const members = await Promise.all(
    (request.participants ?? []).map((id) => deps.directory.user(id)),
  );
  const speakers: SpeakerHint[] = [...new Set(members.map((m) => m.name))].map((name) => ({
    name,
  }));
  return {
    ...uploadOptions(settings, request.context),
    ...(speakers.length === 0 ? {} : { speakers }),
  };
}
