import { createHash } from "node:crypto";

/**
 * Draws one content into a job's status message; resolves with the message's ts. `urgent`:
 * someone waits for it (a stage change or a prompt, not just a progress figure).
 */
export type Draw<C> = (content: C, ts: string | undefined, urgent: boolean) => Promise<string>;

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
  /** The job ended while a draw was under way: forget it once the draws are done. */
  forgotten: boolean;
  next: Pending<C> | undefined;
}

interface Pending<C> {
  content: C;
  digest: string;
  urgent: boolean;
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
 * newest is drawn after it. A caller that must know the outcome (`wait`) gets it once its
 * state — or a newer one — is on screen; a progress figure need not wait at all.
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
   * undefined). Resolves with the message's ts: at once when nothing changes or `wait` is
   * false and a draw of this job is already under way, else once drawn.
   */
  paint(
    key: string,
    ts: string | undefined,
    content: C,
    wait: boolean,
    recheck?: Recheck<C>,
  ): Promise<string> {
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
      // A state someone waited for stays urgent when a newer one takes its place.
      const urgent = wait || (canvas.next?.urgent ?? false);
      canvas.next = {
        content,
        digest,
        urgent,
        done: [...waiting, { resolve, reject }],
        recheck: recheck ?? canvas.next?.recheck,
      };
    });
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
      canvas = { ts, shown: undefined, drawing: undefined, forgotten: false, next: undefined };
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
    canvas.next = { content: newer, digest, urgent: true, done: [], recheck };
  }

  async #drawAll(key: string, canvas: Canvas<C>): Promise<void> {
    for (let next = canvas.next; next !== undefined; next = canvas.next) {
      canvas.next = undefined;
      const progress = !next.urgent;
      if (progress) this.#progressDrawing += 1;
      try {
        canvas.ts = await this.#draw(next.content, canvas.ts, next.urgent);
        canvas.shown = next.digest;
        for (const waiter of next.done) waiter.resolve(canvas.ts);
        if (canvas.next === undefined && next.recheck !== undefined) {
          await this.#recheck(canvas, next.content, next.recheck);
        }
      } catch (error) {
        canvas.shown = undefined;
        for (const waiter of next.done) waiter.reject(error);
      } finally {
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
