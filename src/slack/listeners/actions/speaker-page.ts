import { z } from "zod";
import { optional } from "../../../util/optional.ts";
import { platformErrorOf } from "../../gateway/slack-errors.ts";
import { VIEWS } from "../../ids.ts";
import { readSpeakerPage } from "../../views/parse-speaker-submission.ts";
import {
  buildSpeakerModal,
  parseSpeakerModalMetadata,
  speakerPages,
} from "../../views/speaker-modal.ts";
import type { ListenerDeps } from "../deps.ts";
import { requestJob } from "../request-job.ts";
import { keepPage, prefillOf } from "../views/speaker-drafts.ts";
import { type ButtonArgs, clickerLocale } from "./job-action.ts";
import { canRegenerate } from "./open-speaker-modal.ts";

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
 * Keeps what the page holds and shows the page before, with the clicked view's `hash`, so Slack
 * refuses a stale page rather than replace what is on screen. A job no longer in its stage
 * changes nothing here: the submission says why.
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
    if (job === undefined || !(mode === "names" ? job.stage === "naming" : canRegenerate(job))) {
      return;
    }
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

function modeOf(callbackId: string): "names" | "regenerate" | undefined {
  if (callbackId === VIEWS.speakerNames) return "names";
  return callbackId === VIEWS.regenerate ? "regenerate" : undefined;
}
