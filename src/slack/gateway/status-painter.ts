import { createHash } from "node:crypto";

/**
 * How much a draw matters: a `progress` figure nobody waits for, an `urgent` one someone
 * waits for (a stage change, a prompt), or what a `person`'s command did, which they are
 * looking at: it goes first, and takes the place of an older state still being drawn.
 */
export type Priority = "progress" | "urgent" | "person";
const RANK: Record<Priority, number> = { progress: 0, urgent: 1, person: 2 };

/**
 * Draws one content into a job's status message; resolves with the message's ts. Once
 * `yieldSignal` aborts, a newer state has taken its place: the draw stops waiting (for
 * Slack's budget, before a re-send) and rejects, though a request already sent stays sent.
 */
export type Draw<C> = (
  content: C,
  ts: string | undefined,
  priority: Priority,
  yieldSignal: AbortSignal,
) => Promise<string>;

/**
 * Asked once `drawn` is on screen: a newer content of the job, if one was made elsewhere
 * meanwhile (another replica moved the job on while this draw waited for Slack's budget).
 */
export type Recheck<C> = (drawn: C) => Promise<C | undefined>;

interface Canvas<C> {
  /** The message as the bot last drew it (or as the job record names it). */
  ts: string | undefined;
  /** What the message shows now. */
  shown: string | undefined;
  /** A draw under way, and the newest content waiting for it to end. */
  drawing: Promise<void> | undefined;
  /** Makes the draw under way give way to a person's. */
  yielding: AbortController | undefined;
  /** The job ended while a draw was under way: forget it once the draws are done. */
  forgotten: boolean;
  next: Pending<C> | undefined;
}

interface Pending<C> {
  content: C;
  digest: string;
  priority: Priority;
  done: Deferred[];
  recheck: Recheck<C> | undefined;
}

interface Deferred {
  resolve: (ts: string) => void;
  reject: (error: unknown) => void;
}

/**
 * Draws status messages at the pace Slack allows, each only when what it shows changes,
 * and the newest state of a job always last: while a draw of a job's message is under way
 * (waiting for `chat.update`'s budget, say), later states replace each other and only the
 * newest is drawn after it — at once when a person waits for it: the draw under way then
 * gives way (its waits and re-sends end; see {@link Draw}). A caller that waits (any but a
 * progress figure) gets the outcome once its state — or a newer one — is on screen.
 *
 * Slack has no conditional edit, so a draw that waited can land after a newer state another
 * process drew: a caller that may be outrun passes `recheck`, asked after its draw lands,
 * and whatever newer content it returns is drawn after it — the newest state still last.
 */
export class StatusPainter<C> {
  readonly #canvases = new Map<string, Canvas<C>>();
  readonly #draw: Draw<C>;
  readonly #visible: (content: C) => unknown;
  readonly #maxProgress: number;
  /** Draws of progress figures alone under way (waiting for Slack's budget, or sent). */
  #progressDrawing = 0;

  /**
   * `visible`: the part of a content people see; a draw is skipped when it is unchanged.
   * `maxProgressDraws`: progress figures drawn at once across all jobs. Slack's budget lets
   * about one `chat.update` a second through anyway; past this, a figure is not drawn (the
   * job's next poll brings a newer one), rather than thousands of draws — each holding its
   * message and its job — queueing for the budget after a restart.
   */
  constructor(
    draw: Draw<C>,
    visible: (content: C) => unknown = (content) => content,
    maxProgressDraws = 4,
  ) {
    this.#draw = draw;
    this.#visible = visible;
    this.#maxProgress = maxProgressDraws;
  }

  /**
   * Shows `content` in the status message of job `key` (at `ts`, or a new message when
   * undefined). Resolves with the message's ts: at once when nothing changes, or for a
   * progress figure when a draw of this job is already under way; else once drawn.
   */
  paint(
    key: string,
    ts: string | undefined,
    content: C,
    priority: Priority,
    recheck?: Recheck<C>,
  ): Promise<string> {
    const wait = priority !== "progress";
    const canvas = this.#canvasOf(key, ts);
    const idle = canvas.ts !== undefined && canvas.drawing === undefined;
    // A progress figure of a message on screen, while enough of them are drawn: skipped.
    if (idle && !wait && this.#progressDrawing >= this.#maxProgress) {
      return Promise.resolve(canvas.ts as string);
    }
    const digest = digestOf(this.#visible(content));
    if (idle && canvas.shown === digest) return Promise.resolve(canvas.ts as string);
    const done = new Promise<string>((resolve, reject) => {
      const waiting = canvas.next?.done ?? [];
      // A state someone waited for stays as urgent when a newer one takes its place.
      const before = canvas.next?.priority ?? "progress";
      canvas.next = {
        content,
        digest,
        priority: RANK[before] > RANK[priority] ? before : priority,
        done: [...waiting, { resolve, reject }],
        recheck: recheck ?? canvas.next?.recheck,
      };
    });
    if (priority === "person") canvas.yielding?.abort();
    canvas.drawing ??= this.#drawAll(key, canvas);
    if (!wait && canvas.ts !== undefined) {
      done.catch(() => undefined);
      return Promise.resolve(canvas.ts);
    }
    return done;
  }

  /** Forgets a job's message (the job ended, its record is gone). */
  forget(key: string): void {
    const canvas = this.#canvases.get(key);
    if (canvas === undefined) return;
    if (canvas.drawing === undefined) this.#canvases.delete(key);
    else canvas.forgotten = true;
  }

  #canvasOf(key: string, ts: string | undefined): Canvas<C> {
    let canvas = this.#canvases.get(key);
    if (canvas === undefined) {
      canvas = {
        ts,
        shown: undefined,
        drawing: undefined,
        yielding: undefined,
        forgotten: false,
        next: undefined,
      };
      this.#canvases.set(key, canvas);
    }
    // A message the job record names that the painter has not drawn (another replica did).
    if (ts !== undefined && canvas.ts === undefined) canvas.ts = ts;
    return canvas;
  }

  /** Queues the newer content `recheck` finds, unless it is what is on screen already. */
  async #recheck(canvas: Canvas<C>, drawn: C, recheck: Recheck<C>): Promise<void> {
    const newer = await recheck(drawn).catch(() => undefined);
    if (newer === undefined || canvas.next !== undefined) return;
    const digest = digestOf(this.#visible(newer));
    if (digest === canvas.shown) return;
    canvas.next = { content: newer, digest, priority: "urgent", done: [], recheck };
  }

  async #drawAll(key: string, canvas: Canvas<C>): Promise<void> {
    for (let next = canvas.next; next !== undefined; next = canvas.next) {
      canvas.next = undefined;
      const progress = next.priority === "progress";
      if (progress) this.#progressDrawing += 1;
      const yielding = new AbortController();
      canvas.yielding = yielding;
      try {
        canvas.ts = await this.#draw(next.content, canvas.ts, next.priority, yielding.signal);
        canvas.shown = next.digest;
        for (const waiter of next.done) waiter.resolve(canvas.ts);
        if (canvas.next === undefined && next.recheck !== undefined) {
          await this.#recheck(canvas, next.content, next.recheck);
        }
      } catch (error) {
        canvas.shown = undefined;
        // Given way to a newer state: its callers hear how that one goes.
        // (Read again: the person's paint set it while this draw was under way.)
        const newer = yielding.signal.aborted ? (canvas.next as Pending<C> | undefined) : undefined;
        if (newer !== undefined) newer.done.push(...next.done);
        else for (const waiter of next.done) waiter.reject(error);
      } finally {
        canvas.yielding = undefined;
        if (progress) this.#progressDrawing -= 1;
      }
    }
    canvas.drawing = undefined;
    if (
      canvas.next === undefined &&
      this.#canvases.get(key) === canvas &&
      (canvas.ts === undefined || canvas.forgotten)
    ) {
      this.#canvases.delete(key);
    }
  }
}

function digestOf(content: unknown): string {
  return createHash("sha1").update(JSON.stringify(content)).digest("base64");
}
