import { createHash } from "node:crypto";

/** `person`: what a person's command did; it goes first and displaces an older draw. */
export type Priority = "progress" | "urgent" | "person";
const RANK: Record<Priority, number> = { progress: 0, urgent: 1, person: 2 };

/**
 * Resolves with the message's ts. Once `yieldSignal` aborts, the draw stops waiting and rejects.
 */
export type Draw<C> = (
  content: C,
  ts: string | undefined,
  priority: Priority,
  yieldSignal: AbortSignal,
) => Promise<string>;

/** Asked once `drawn` is on screen: a newer content made elsewhere meanwhile, if any. */
export type Recheck<C> = (drawn: C) => Promise<C | undefined>;

interface Canvas<C> {
  ts: string | undefined;
  /** Digest of what the message shows now. */
  shown?: string | undefined;
  drawing?: Promise<void> | undefined;
  yielding?: AbortController | undefined;
  forgotten?: boolean;
  next?: Pending<C> | undefined;
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
 * Draws status messages at Slack's pace, only on change; states arriving mid-draw give way to the
 * newest. Slack has no conditional edit, so a caller another process may outrun passes `recheck`.
 */
export class StatusPainter<C> {
  readonly #canvases = new Map<string, Canvas<C>>();
  readonly #draw: Draw<C>;
  readonly #visible: (content: C) => unknown;
  readonly #maxProgress: number;
  #progressDrawing = 0;

  /**
   * `visible`: the part people see (unchanged: no draw). Past `maxProgressDraws` at once a
   * progress figure is skipped (the next poll brings a newer) rather than queued.
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
   * Resolves at once when nothing changes or for a progress figure while a draw is under way; else
   * once drawn.
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

  forget(key: string): void {
    const canvas = this.#canvases.get(key);
    if (canvas === undefined) return;
    if (canvas.drawing === undefined) this.#canvases.delete(key);
    else canvas.forgotten = true;
  }

  #canvasOf(key: string, ts: string | undefined): Canvas<C> {
    let canvas = this.#canvases.get(key);
    if (canvas === undefined) {
      canvas = { ts };
      this.#canvases.set(key, canvas);
    }
    // A message the job record names that the painter has not drawn (another replica did).
    if (ts !== undefined && canvas.ts === undefined) canvas.ts = ts;
    return canvas;
  }

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
