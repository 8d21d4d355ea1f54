import type { ModalView } from "@slack/types";
import { z } from "zod";
import type { Job } from "../../../jobs/index.ts";
import { optional } from "../../../util/optional.ts";
import { platformErrorOf } from "../../gateway/slack-errors.ts";
import { VIEWS } from "../../ids.ts";
import { buildCommandRefusal, buildPermissionRefusal } from "../../views/command-replies.ts";
import { buildNoticeModal } from "../../views/notice-modal.ts";
import { readSpeakerPage } from "../../views/speaker-form.ts";
import {
  buildSpeakerModal,
  parseSpeakerModalMetadata,
  speakerModalIdentity,
  speakerModalMetadata,
  speakerPages,
} from "../../views/speaker-modal.ts";
import type { ListenerDeps } from "../deps.ts";
import { openThenFill } from "../open-modal.ts";
import { requestJob } from "../request-job.ts";
import { keepPage, prefillOf } from "../views/speaker-drafts.ts";
import {
  type ButtonArgs,
  type Click,
  clickerLocale,
  mayClick,
  readClick,
  tellClicker,
  unlessStoreDown,
} from "./job-action.ts";

type Mode = "names" | "regenerate";

/**
 * A `trigger_id` lasts 3 seconds, so only the job is read (a job gone is said without a modal)
 * before a loading view opens; permission, live from Slack, is asked in the open modal.
 */
export function openSpeakerModal(deps: ListenerDeps, mode: Mode) {
  return async (args: ButtonArgs) => {
    const click = await readClick(deps, args);
    if (click === undefined || click.triggerId === undefined) return;
    const read = await unlessStoreDown(deps, click, () => requestJob(deps, click.jobId));
    if (read === undefined) return;
    const job = read.value;
    if (!(await fits(deps, click, job, mode)) || job === undefined) return;
    await openThenFill(deps, {
      triggerId: click.triggerId,
      userId: click.userId,
      identity: (locale) => speakerModalIdentity(mode, speakerModalMetadata(job.id, 0), locale),
      fill: () => speakerModal(deps, job, click, mode),
      tell: (content) => tellClicker(deps, click, content),
    });
  };
}

/** Ready notes, in the thread or in full for their review, may be rewritten. */
export function canRegenerate(job: Job): boolean {
  return job.stage === "done" || (job.stage === "reviewing" && job.ready === true);
}

function inStageFor(mode: Mode, job: Job): boolean {
  return mode === "names" ? job.stage === "naming" : canRegenerate(job);
}

/** Otherwise, or when the job is gone, the clicker alone hears why. */
async function fits(
  deps: ListenerDeps,
  click: Click,
  job: Job | undefined,
  mode: Mode,
): Promise<boolean> {
  const stageFits = job !== undefined && inStageFor(mode, job);
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
    mayClick(deps, mode, job, click),
  ]);
  if (!decision.ok) {
    const identity = speakerModalIdentity(mode, speakerModalMetadata(job.id, 0), locale);
    return buildNoticeModal(identity, locale, [
      buildPermissionRefusal(decision.reason, mode, locale),
    ]);
  }
  const quotes = await deps.jobs.quotesOf(job);
  return buildSpeakerModal(job, { locale, mode, quotes });
}

const pageClickSchema = z.object({
  user: z.looseObject({ id: z.string().min(1) }),
  view: z.looseObject({
    id: z.string().min(1),
    hash: z.string().optional(),
    callback_id: z.string(),
    private_metadata: z.string(),
    state: z.looseObject({ values: z.unknown() }).optional(),
  }),
});

/**
 * Keeps what the page holds and shows the page before with the clicked view's `hash`, so Slack
 * refuses a stale page rather than replace what is on screen.
 */
export function speakerPagePrevious(deps: ListenerDeps) {
  return async (args: ButtonArgs) => {
    await args.ack();
    const parsed = pageClickSchema.safeParse(args.body);
    if (!parsed.success) {
      deps.logger.warn({ issues: parsed.error.issues.slice(0, 2) }, "unreadable page click");
      return;
    }
    const { user, view } = parsed.data;
    const mode = modeOf(view.callback_id);
    const meta = parseSpeakerModalMetadata(view.private_metadata);
    if (mode === undefined || meta === undefined || meta.page === 0) return;
    const job = await requestJob(deps, meta.jobId);
    if (job === undefined || !inStageFor(mode, job)) return;
    const speakerIds = (speakerPages(job)[meta.page] ?? []).map((s) => s.speakerId);
    const entered = readSpeakerPage(view.state?.values, speakerIds);
    const draft = await keepPage(deps, job, view.id, { speakerIds, ...entered });
    const [locale, quotes] = await Promise.all([
      clickerLocale(deps, user.id),
      deps.jobs.quotesOf(job),
    ]);
    const previous = buildSpeakerModal(job, {
      locale,
      mode,
      quotes,
      page: meta.page - 1,
      prefill: prefillOf(draft),
      ...optional("contextText", draft.contextText),
    });
    await deps.responder
      .updateModal(view.id, previous, view.hash)
      .catch((error: unknown) =>
        deps.logger.info({ err: error, code: platformErrorOf(error) }, "previous page not shown"),
      );
  };
}

function modeOf(callbackId: string): Mode | undefined {
  if (callbackId === VIEWS.speakerNames) return "names";
  return callbackId === VIEWS.regenerate ? "regenerate" : undefined;
}
