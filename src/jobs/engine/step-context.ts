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
  /** Renews the job's lease; throws once this process has lost it. */
  holdLease: () => Promise<void>;
  /** When each job's status message was last drawn (shared across steps, for throttling). */
  lastStatusAt: Map<string, number>;
  /** Whether something was asked of the job (a person's command, a stop) since the step began. */
  requestWaiting: (jobId: string) => Promise<boolean>;
  /** What a step throws to give the job up for such a request. */
  onRequest: () => Error;
  /** Runs a job's next step soon (a waiting job a freed slot lets through). */
  kick: (jobId: string) => void;
  /** Whether the process is shutting down. */
  stopping: () => boolean;
}

/**
 * What one step may use: the ports, and the two operations every step goes through —
 * `commit` (record an event, checkpoint) and `showStatus` (draw the status message).
 */
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
      // Every save first proves this process still holds the lease: a replica that
      // stalled past it must not overwrite the new holder's progress.
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
      // The first post is checkpointed like a note part: its intent is saved before it, so
      // a run after a lost answer or a crash looks in the thread before posting another.
      const mayExist = shown.statusTs === undefined && shown.statusPostingAt !== undefined;
      const job =
        shown.statusTs === undefined && !mayExist
          ? await ctx.commit(shown, { type: "status_posting", at: now() })
          : shown;
      // Drawn after a newer state another replica saved meanwhile? Then that one again.
      const drawing = o.gateway.showStatus(job, mode, () => o.repo.get(job.id), mayExist);
      const drawn = await untilGivenUp(drawing, o, job.id);
      // Given up for a request, a lost lease or a shutdown: a prompt's step stops here; any
      // other goes on to its next commit, which stops it (or it has none left to make).
      if ("gaveUp" in drawn) {
        if (mode === "required") throw drawn.gaveUp;
        return job;
      }
      if ("failed" in drawn) {
        const error = drawn.failed;
        // A stale status line is not worth failing a job for; the next change redraws it.
        // Only a prompt the user must act on ("required") makes the step try again.
        // A lost install ends the job: it would never draw anything again.
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

/** How often a step waiting for Slack to draw its status looks for a request on the job. */
const REQUEST_CHECK_MS = 250;

/**
 * The draw's outcome, unless the step is given up first: its signal aborts (a request made
 * in this process, a lost lease, a shutdown) or a request on the job is recorded elsewhere
 * (another replica). Drawing is background work: it never keeps a person's command waiting
 * (the draw goes on, and the person's own draw takes its place).
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
