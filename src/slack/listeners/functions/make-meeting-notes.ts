import { setTimeout as sleep } from "node:timers/promises";
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
import { BACKOFFS, backoffDelayMs } from "../../../util/backoff.ts";
import { pickedRecording } from "../../directory/recording-file.ts";
import { platformErrorOf, toGatewayError } from "../../gateway/slack-errors.ts";
import { requestOrigin, requestTenant, requestWorkspace } from "../../installs/request-tenant.ts";
import { type Locale, localeOf, t } from "../../messages/index.ts";
import { neutralizeMentions as asPlain, clampText } from "../../text/index.ts";
import { buildRefusal } from "../../views/index.ts";
import type { ListenerDeps } from "../deps.ts";
import { openThread } from "../views/new-notes-job.ts";

/** The most participants taken as speaker hints (a meeting's, not a channel's). */
const MAX_PARTICIPANTS = 50;
/** File names are shortened so a sentence stays readable (as in the thread's). */
const MAX_FILENAME_CHARS = 200;
/** As the /meeting-notes modal's context field. */
const MAX_CONTEXT_CHARS = 3_000;

/**
 * The step's inputs as the manifest declares them (`functions.make_meeting_notes`), checked
 * here: Workflow Builder fills them from a workflow an admin built, not from Slack itself.
 * `user` is a `slack#/types/user_context` (`{ id, secret }`): Workflow Builder sets it, never
 * a builder — whoever started the workflow, or whoever clicked a button in an earlier step
 * (https://docs.slack.dev/reference/types/user_context-type) — so a workflow cannot name
 * someone who did not act in it.
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
 * The Workflow Builder step "Make meeting notes" (Bolt acks `function_executed` itself):
 * once per step run however often Slack delivers it, the same checks as a request in the
 * /meeting-notes modal — the recording the person's own or shared where they are, one the
 * bot takes and can read (the job downloads it with the bot's token, long after the step's
 * is gone); the channel one both they and the bot are in (they name the speakers there) —
 * then an ordinary job in a thread the bot opens in that channel.
 *
 * The step ends here, through Bolt's `complete` and `fail`, on the step's own token (the
 * event's `bot_access_token`, which Slack's SDKs complete with): a refusal fails it with one
 * sentence; a started job completes it with the thread's link. That token lives 15 minutes
 * (a Slack maintainer: https://github.com/slackapi/bolt-python/issues/1075), a job as long as
 * a person takes to name the speakers, so the step does not wait for the notes: they follow
 * in the thread, and so does any later failure.
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

/** Tries of a completion Slack answered with a passing error, a few seconds apart at most. */
const COMPLETE_TRIES = 3;

/**
 * Completes the step, sent again while Slack answers with a passing error (its step's token
 * lives minutes, not hours: a few tries now, never a sweep later); an answer that the step
 * is no longer running means an earlier try was taken.
 */
async function completeStep(send: () => Promise<unknown>, logger: Logger): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      await send();
      return;
    } catch (error) {
      const code = platformErrorOf(error);
      if (code === "execution_not_in_running_state") return;
      const again = toGatewayError(error, "functions.completeSuccess").transient;
      if (!again || attempt + 1 >= COMPLETE_TRIES) {
        logger.warn({ err: error, code }, "could not complete the workflow step");
        return;
      }
      await sleep(backoffDelayMs(BACKOFFS.slackResend, attempt));
    }
  }
}

/**
 * Why the recording is refused, in one sentence: an upload's words, but for a format, which
 * an upload's reply says in two (what, then what to upload instead).
 */
function refusalSentence(reason: StartRefusal, filename: string, locale: Locale): string {
  if (reason !== "unsupported_format") return buildRefusal(reason, filename, locale).text;
  return t(locale, "step.not_a_recording", {
    file: asPlain(clampText(filename, MAX_FILENAME_CHARS)),
    formats: SUPPORTED_AUDIO_FORMATS.join(", "),
  });
}

type Checked = { ok: true; source: SourceFile } | { ok: false; sentence: string; why: string };

/** The recording and the channel, as Slack has them now, asked together. */
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
    const key =
      destination === "bot_not_in"
        ? "step.bot_not_in"
        : destination === "user_not_in"
          ? "step.user_not_in"
          : "step.channel_unknown";
    return { ok: false, sentence: t(locale, key), why: destination };
  }
  return { ok: true, source };
}

/**
 * As an upload to the channel would have (its language, template, review and context), the
 * step's context added, and the participants as speaker hints by their real names — where
 * the /meeting-notes modal puts its participants.
 */
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
