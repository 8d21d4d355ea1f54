import type { JobEvent } from "../model/events.ts";
import type { Job } from "../model/job.ts";
import { applyEvent, type StageObserver } from "./apply-event.ts";
import { lostInstall } from "./failure-policy.ts";
import type { JobPorts, StageLimits, StepContext } from "./step.ts";

export interface StepContextOptions extends JobPorts {
  limits: StageLimits;
  tempDir: string;
  now: () => number;
  statusThrottleMs: number;
  onStageChange: StageObserver | undefined;
  signal: AbortSignal;
  holdLease: () => Promise<void>;
  lastStatusAt: Map<string, number>;
  requestWaiting: (jobId: string) => Promise<boolean>;
  onRequest: () => Error;
  kick: (jobId: string) => void;
  stopping: () => boolean;
}

export function createStepContext(o: StepContextOptions): StepContext {
  const { now, logger } = o;
  const ctx: StepContext = {
    client: o.client,
    gateway: o.gateway,
    media: o.media,
    store: o.store,
    admission: o.admission,
    schedule: o.schedule,
    limits: o.limits,
    tempDir: o.tempDir,
    now,
    signal: o.signal,
    stopping: o.stopping,
    logger,
    commit: async (job: Job, event: JobEvent) => {
      // A replica that stalled past its lease must not overwrite the new holder's progress.
      await o.holdLease();
      const terminal = event.type === "canceled" || event.type === "failed";
      if (!terminal && (await o.requestWaiting(job.id))) throw o.onRequest();
      const next = await applyEvent({ ...o, logger }, job, event);
      return next;
    },
    update: async <J extends Job>(job: J, event: JobEvent): Promise<J> => {
      const next = await ctx.commit(job, event);
      if (next.stage !== job.stage) {
        throw new Error(`The event ${event.type} moved a job out of stage ${job.stage}.`);
      }
      return next as J;
    },
    showStatus: async (shown, mode) => {
      const last = o.lastStatusAt.get(shown.id) ?? 0;
      if (mode === "progress" && now() - last < o.statusThrottleMs) return shown;
      o.lastStatusAt.set(shown.id, now());
      // The first post is checkpointed like a note part: a
      // run after a lost answer looks in the thread first.
      const mayExist = shown.statusTs === undefined && shown.statusPostingAt !== undefined;
      const job =
        shown.statusTs === undefined && !mayExist
          ? await ctx.commit(shown, { type: "status_posting", at: now() })
          : shown;
      const drawing = o.gateway.showStatus(job, mode, () => o.repo.get(job.id), mayExist);
      const drawn = await untilGivenUp(drawing, o, job.id);
      // Given up: a prompt's step stops here; any other stops at its next commit.
      if ("gaveUp" in drawn) {
        if (mode === "required") throw drawn.gaveUp;
        return job;
      }
      if ("failed" in drawn) {
        const error = drawn.failed;
        // A stale status line is not worth failing a job
        // for; a prompt is, and a lost install ends the job.
        if (mode === "required" || lostInstall(error)) throw error;
        logger.warn({ err: error }, "could not update the status message");
        return job;
      }
      const { ts } = drawn;
      return ts === job.statusTs ? job : ctx.commit(job, { type: "status_posted", ts });
    },
  };
  return ctx;
}

const REQUEST_CHECK_MS = 250;

/**
 * The draw's outcome, unless a request or the signal gives the
 * step up first: drawing never keeps a person's command waiting.
 */
async function untilGivenUp(
  drawing: Promise<string>,
  o: Pick<StepContextOptions, "signal" | "requestWaiting" | "onRequest">,
  jobId: string,
): Promise<{ ts: string } | { failed: unknown } | { gaveUp: unknown }> {
  const { signal } = o;
  let timer: NodeJS.Timeout | undefined;
  let over = false;
  let onAbort: (() => void) | undefined;
  const givenUp = new Promise<{ gaveUp: unknown }>((resolve) => {
    onAbort = () => resolve({ gaveUp: signal.reason });
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    const look = () => {
      timer = setTimeout(async () => {
        const asked = await o.requestWaiting(jobId).catch(() => false);
        if (over) return;
        if (asked) resolve({ gaveUp: o.onRequest() });
        else look();
      }, REQUEST_CHECK_MS);
    };
    look();
  });
  const outcome = drawing.then(
    (ts) => ({ ts }),
    (failed: unknown) => ({ failed }),
  );
  try {
    return await Promise.race([outcome, givenUp]);
  } finally {
    over = true;
    clearTimeout(timer);
    if (onAbort !== undefined) signal.removeEventListener("abort", onAbort);
  }
}
