import { optional } from "../../util/optional.ts";
import type { EventOf } from "./events.ts";
import type { Job, JobIn } from "./job.ts";
import { advance, commonOf, enter, MAX_RELINKS, type Reducers, startWriting } from "./reducers.ts";

type Reviewing = JobIn<"reviewing">;
type Delivering = JobIn<"delivering">;

/**
 * A written note on its way, to its review's DM or to the thread: each post and upload is
 * checkpointed (intent before, result after), so a crash never posts twice.
 */
const carrying: Reducers<"reviewing" | "delivering"> = {
  docx_downloaded: (job, event, now) => advance(job, now, { docxPath: event.docxPath }),
  // The note is written again before any part is posted, a few times at most.
  docx_link_expired: (job, _event, now) =>
    job.postedParts > 0 || job.relinks >= MAX_RELINKS
      ? undefined
      : startWriting(job, job.note, job.relinks + 1, job.delivery, now),
  part_posting: (job, event) => ({ ...job, postingPart: event.index }),
  part_posted: ({ postingPart: _, ...job }, event, now) =>
    advance(job, now, { postedParts: Math.max(job.postedParts, event.index + 1) }),
  docx_uploading: (job) => ({ ...job, uploadingDocx: true }),
  docx_uploaded: ({ uploadingDocx: _, ...job }, event, now) =>
    advance(job, now, { docxFileId: event.fileId }),
  transcript_uploading: (job) => ({ ...job, uploadingTranscript: true }),
};

/**
 * Reading the thread is no progress (`attempts` stays, so a failing post still reaches the
 * limit); finding there what the record did not know (a lost post's success) is.
 */
function reconciled<J extends Reviewing | Delivering>(
  job: J,
  event: EventOf<"delivery_reconciled">,
  now: number,
  transcriptKnown: boolean,
): J {
  const { postingPart: _p, uploadingDocx: _u, uploadingTranscript: _t, ...rest } = job;
  const foundMore =
    event.postedParts > job.postedParts ||
    (event.docxFileId !== undefined && job.docxFileId === undefined) ||
    ((event.transcriptFileIds ?? []).length > 0 && !transcriptKnown);
  return {
    ...rest,
    wakeAt: now,
    attempts: foundMore ? 0 : job.attempts,
    postedParts: event.postedParts,
  } as J;
}

const reviewing: Reducers<"reviewing"> = {
  ...carrying,
  review_opening: (job, event) => ({ ...job, openingAt: event.at }),
  review_opened: ({ openingAt: _, ...job }, event, now) =>
    advance(job, now, { review: { channelId: event.channelId, ts: event.ts }, opened: true }),
  transcript_uploaded: ({ uploadingTranscript: _, ...job }, event, now) =>
    advance(job, now, { transcriptFileIds: event.fileIds }),
  delivery_reconciled: (job, event, now) => {
    const transcript = event.transcriptFileIds ?? [];
    return {
      ...reconciled(job, event, now, job.transcriptFileIds !== undefined),
      ...optional("docxFileId", event.docxFileId ?? job.docxFileId),
      ...(transcript.length === 0 ? {} : { transcriptFileIds: transcript }),
    };
  },
  review_ready: (job, event) => advance(job, event.wakeAt, { ready: true }),
  review_reminding: (job, event) => ({ ...job, remindingAt: event.at }),
  review_reminded: ({ remindingAt: _, ...job }, event) =>
    advance(job, event.wakeAt, { reminded: true }),
  // Only a note the person could read in full may be posted or discarded.
  review_posted: (job, _event, now) =>
    job.ready === true
      ? enter(job, "delivering", now, {
          note: job.note,
          markdown: job.markdown,
          docxUrl: job.docxUrl,
          relinks: job.relinks,
          delivery: job.delivery,
          ...optional("docxPath", job.docxPath),
          postedParts: 0,
        })
      : undefined,
  review_discarded: (job, event, now) =>
    job.ready === true ? discarded(job, event.by, now) : undefined,
  review_expired: (job, _event, now) => discarded(job, undefined, now),
};

function discarded(job: Reviewing, by: string | undefined, now: number): Job {
  return { ...commonOf(job), stage: "discarded", ...optional("discardedBy", by), finishedAt: now };
}

const delivering: Reducers<"delivering"> = {
  ...carrying,
  canvas_creating: (job, event) => ({ ...job, creatingCanvasAt: event.at }),
  canvas_created: ({ creatingCanvasAt: _, canvasRefused: _r, ...job }, event, now) =>
    advance(job, now, { canvas: { id: event.canvasId, delivery: job.delivery } }),
  canvas_updated: (job, _event, now) =>
    job.canvas === undefined
      ? undefined
      : advance(job, now, { canvas: { ...job.canvas, delivery: job.delivery } }),
  canvas_shared: (job, event, now) =>
    job.canvas === undefined
      ? undefined
      : advance(job, now, { canvas: { ...job.canvas, url: event.url } }),
  // Someone deleted the canvas: the next step makes a new one.
  canvas_gone: ({ canvas: _, ...job }) => job,
  canvas_refused: ({ creatingCanvasAt: _, ...job }, event, now) =>
    advance(job, now, { canvasRefused: event.reason }),
  transcript_uploaded: ({ uploadingTranscript: _, ...job }, event, now) =>
    advance(job, now, { transcript: { delivery: job.delivery, fileIds: event.fileIds } }),
  delivery_reconciled: (job, event, now) => {
    const { docxFileId: _, ...rest } = reconciled(
      job,
      event,
      now,
      job.transcript?.delivery === job.delivery,
    );
    const fileIds = event.transcriptFileIds ?? [];
    return {
      ...rest,
      ...optional("docxFileId", event.docxFileId),
      ...(fileIds.length === 0 ? {} : { transcript: { delivery: job.delivery, fileIds } }),
    };
  },
  delivered: ({ docxUrl: _u, docxPath: _p, relinks: _r, wakeAt: _w, ...job }, _event, now) => ({
    ...job,
    stage: "done",
    finishedAt: now,
  }),
};

export const DELIVERY_REDUCERS = { reviewing, delivering };
