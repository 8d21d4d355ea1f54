import type { ModalView } from "@slack/types";
import type { Job } from "../../../jobs/index.ts";
import { localeOf, t } from "../../messages/catalog.ts";
import { buildCommandRefusal, buildPermissionRefusal } from "../../views/command-replies.ts";
import { buildLoadingModal, buildNoticeModal, sentenceReply } from "../../views/notice-modal.ts";
import {
  buildSpeakerModal,
  speakerModalIdentity,
  speakerModalMetadata,
} from "../../views/speaker-modal.ts";
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
 * The modal opens with a loading view before any Slack look-up (the `trigger_id` lasts 3 s).
 * Only the job is read first, so a job gone or in another stage is said without a modal;
 * permission, live from Slack, is asked once it is open, and a refusal shows in it.
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
      loading: buildLoadingModal(
        speakerModalIdentity(mode, speakerModalMetadata(job.id, 0), early),
        early,
      ),
      fill: () => speakerModal(deps, job, click, mode),
      failed: () =>
        buildNoticeModal(
          speakerModalIdentity(mode, speakerModalMetadata(job.id, 0), early),
          early,
          [sentenceReply(t(early, "notice.failed"))],
        ),
    });
    if (!opened) {
      const said = sentenceReply(t(await clickerLocale(deps, click.userId), "notice.open_failed"));
      await tellClicker(deps, click, said);
    }
  };
}

/** Ready notes, in the thread or in full for their review, may be rewritten. */
export function canRegenerate(job: Job): boolean {
  return job.stage === "done" || (job.stage === "reviewing" && job.ready === true);
}

/** Otherwise, or when the job is gone, the clicker alone hears why. */
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

/** For anyone who may not open it, says who may. */
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
    return buildNoticeModal(
      speakerModalIdentity(mode, speakerModalMetadata(job.id, 0), locale),
      locale,
      [refusal],
    );
  }
  const quotes = await deps.jobs.quotesOf(job);
  return buildSpeakerModal(job, { locale, mode, quotes });
}
