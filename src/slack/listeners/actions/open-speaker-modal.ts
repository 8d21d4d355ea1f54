import type { ModalView } from "@slack/types";
import type { Job } from "../../../jobs/index.ts";
import { VIEWS } from "../../ids.ts";
import { type Locale, localeOf, t } from "../../messages/index.ts";
import {
  buildCommandRefusal,
  buildLoadingModal,
  buildNoticeModal,
  buildPermissionRefusal,
  buildSpeakerModal,
  type ModalIdentity,
  sentenceReply,
  speakerModalMetadata,
} from "../../views/index.ts";
import type { ListenerDeps } from "../deps.ts";
import { openThenFill } from "../open-modal.ts";
import { requestJob } from "../request-job.ts";
import {
  type ButtonArgs,
  type Click,
  clickerLocale,
  readClick,
  tellClicker,
  unlessStoreDown,
} from "./job-action.ts";

type Mode = "names" | "regenerate";

/**
 * "Name speakers" (job waiting for names) and "Regenerate" (job done; "Change names" on a
 * note waiting for its review) open the speaker
 * modal for whoever may do it. The `trigger_id` is good for 3 seconds only, so the modal
 * opens with a loading view before any Slack look-up: only the job is read first (the
 * store), so that a job gone, in another stage or cooling down is said to the clicker
 * alone, as for every button, without a modal. Who may do it (roles and membership, live
 * from Slack) is asked once the modal is open, and a refusal shows in it.
 */
export function openSpeakerModal(deps: ListenerDeps, mode: Mode) {
  return async (args: ButtonArgs) => {
    const click = await readClick(deps, args);
    if (click === undefined || click.triggerId === undefined) return;
    const read = await unlessStoreDown(deps, click, () => requestJob(deps, click.jobId));
    if (read === undefined) return;
    const job = read.value;
    if (!(await fits(deps, click, job, mode)) || job === undefined) return;
    const early = localeOf(deps.directory.cachedUser(click.userId)?.locale);
    const opened = await openThenFill({
      responder: deps.responder,
      logger: deps.logger,
      triggerId: click.triggerId,
      loading: buildLoadingModal(speakerIdentity(job, mode, early), early),
      fill: () => speakerModal(deps, job, click, mode),
      failed: () =>
        buildNoticeModal(speakerIdentity(job, mode, early), early, [
          sentenceReply(t(early, "notice.failed")),
        ]),
    });
    if (!opened) {
      const said = sentenceReply(t(await clickerLocale(deps, click.userId), "notice.open_failed"));
      await tellClicker(deps, click, said);
    }
  };
}

/** Notes ready (in the thread, or in full for their review: its Change names) may be rewritten. */
export function canRegenerate(job: Job): boolean {
  return job.stage === "done" || (job.stage === "reviewing" && job.ready === true);
}

/**
 * Whether the job is in the stage the button is for (and Regenerate past its cooldown);
 * if not, or when the job is gone, the clicker alone hears why.
 */
async function fits(
  deps: ListenerDeps,
  click: Click,
  job: Job | undefined,
  mode: Mode,
): Promise<boolean> {
  const stageFits =
    job !== undefined && (mode === "names" ? job.stage === "naming" : canRegenerate(job));
  const waitMs = job !== undefined && mode === "regenerate" ? deps.jobs.regenerateWaitMs(job) : 0;
  if (job !== undefined && stageFits && waitMs === 0) return true;
  const reason = job === undefined ? "not_found" : stageFits ? "cooldown" : "wrong_stage";
  const locale = await clickerLocale(deps, click.userId);
  await tellClicker(deps, click, buildCommandRefusal(reason, mode, locale, waitMs));
  deps.logger.info({ jobId: click.jobId, userId: click.userId, refused: reason }, "modal refused");
  return false;
}

/** The speaker modal for someone who may open it; for anyone else, who may. */
async function speakerModal(
  deps: ListenerDeps,
  job: Job,
  click: Click,
  mode: Mode,
): Promise<ModalView> {
  const [locale, decision] = await Promise.all([
    clickerLocale(deps, click.userId),
    deps.permissions.jobAction(mode, job, click.userId, {
      channelId: click.channelId,
      messageTs: click.messageTs,
      threadTs: click.threadTs,
    }),
  ]);
  if (!decision.ok) {
    deps.logger.info(
      { jobId: job.id, userId: click.userId, action: mode, refused: decision.reason },
      "job action refused",
    );
    const refusal = buildPermissionRefusal(decision.reason, mode, locale);
    return buildNoticeModal(speakerIdentity(job, mode, locale), locale, [refusal]);
  }
  const quotes = await deps.jobs.quotesOf(job);
  return buildSpeakerModal(job, { locale, mode, quotes });
}

/** The speaker modal as it is from its loading view on: its first page. */
function speakerIdentity(job: Job, mode: Mode, locale: Locale): ModalIdentity {
  return {
    callbackId: mode === "names" ? VIEWS.speakerNames : VIEWS.regenerate,
    privateMetadata: speakerModalMetadata(job.id, 0),
    title: t(locale, mode === "names" ? "modal.speakers.title" : "modal.regenerate.title"),
  };
}
