import type { Logger } from "pino";
import { z } from "zod";
import type { EpochCheck, Store } from "../../store/index.ts";
import type { JobRunner } from "../engine/runner.ts";
import type { Origin, SourceFile } from "../model/job.ts";
import { tenantOfOrigin } from "../model/tenant.ts";
import type { JobRepository } from "../persistence/job-repository.ts";
import type { KnownJob, RecentJobs } from "../persistence/recent-jobs.ts";
import type { WorkspaceData } from "../persistence/workspace-data.ts";
import type { StoreResetPort } from "../ports.ts";

/** What App Home shows a person whose jobs were lost: when, and which recordings. */
export const resetNoticeSchema = z.object({
  at: z.number(),
  files: z.array(z.string()),
});
export type ResetNotice = z.infer<typeof resetNoticeSchema>;

/** How often a loss is looked for, and how long each of its reports lasts. */
export interface StoreResetTimings {
  /** Between two background looks at the store's epoch (one GET on Redis). */
  checkEveryMs: number;
  /** How long readiness reports a loss. */
  reportForMs: number;
  /**
   * How long after a loss each new upload first looks in its thread for the bot's status
   * message of its file (Slack retries an event for minutes; an upload whose claim the loss
   * took must not start twice).
   */
  guardForMs: number;
  /** How long App Home tells a person their jobs were lost. */
  noticeForMs: number;
}

const MINUTE_MS = 60_000;
/** A GET every 5 s; readiness for 15 minutes, the upload guard for an hour, App Home 3 days. */
export const DEFAULT_STORE_RESET_TIMINGS: StoreResetTimings = {
  checkEveryMs: 5_000,
  reportForMs: 15 * MINUTE_MS,
  guardForMs: 60 * MINUTE_MS,
  noticeForMs: 3 * 24 * 60 * MINUTE_MS,
};

/** Recordings named in one person's notice, at most. */
const NOTICE_FILES = 10;

/** What the watch reads, stops and tells. */
export interface StoreResetWatchOptions {
  store: Pick<Store, "checkEpoch" | "get" | "set">;
  repo: Pick<JobRepository, "get">;
  recent: RecentJobs;
  runner: Pick<JobRunner, "discard">;
  /** Where the notices are noted, so that an uninstall deletes them (they name recordings). */
  workspaces: Pick<WorkspaceData, "note">;
  /** The Slack side; without it, a loss is logged and reported only. */
  port?: StoreResetPort | undefined;
  logger: Logger;
  now?: () => number;
  timings?: Partial<StoreResetTimings>;
}

const noticeKey = (teamId: string, userId: string) => `store-reset:${teamId}:${userId}`;

/**
 * Detects a store that lost its data — a Redis restarted empty or flushed, which would
 * otherwise strand every running job silently — by its epoch (`Store.checkEpoch`), looked at
 * in the background and on each new upload. On a loss it logs an error once, keeps the time
 * for readiness, stops the steps of the jobs whose records are gone, has their status
 * messages say so, leaves a notice for their people's App Home, and for a while has each
 * new upload look in its thread before starting (the loss took the upload claims too).
 */
export class StoreResetWatch {
  readonly #o: StoreResetWatchOptions;
  readonly #t: StoreResetTimings;
  readonly #now: () => number;
  #timer: NodeJS.Timeout | undefined;
  #checking: Promise<EpochCheck | undefined> | undefined;
  readonly #handling = new Set<Promise<void>>();
  #lastResetAt: number | undefined;
  #stopped = false;

  constructor(options: StoreResetWatchOptions) {
    this.#o = options;
    this.#t = { ...DEFAULT_STORE_RESET_TIMINGS, ...options.timings };
    this.#now = options.now ?? Date.now;
  }

  /** Reads (or writes) the store's epoch once, then keeps looking in the background. */
  async start(): Promise<void> {
    this.#stopped = false;
    await this.check();
    this.#timer = setInterval(() => void this.check(), this.#t.checkEveryMs);
    this.#timer.unref();
  }

  /** Stops looking; resolves once the handling of a loss under way has ended. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await Promise.all(this.#handling);
  }

  /**
   * Looks at the store's epoch now (a look already under way is shared); resolves with what
   * it found, or undefined when the store could not be read (tried again later).
   */
  check(): Promise<EpochCheck | undefined> {
    this.#checking ??= this.#o.store
      .checkEpoch()
      .then(
        (found) => {
          if (found === "reset") this.#onReset();
          return found;
        },
        (error: unknown) => {
          this.#o.logger.debug({ err: error }, "store epoch check failed");
          return undefined;
        },
      )
      .finally(() => {
        this.#checking = undefined;
      });
    return this.#checking;
  }

  /** When the store last lost its data, while readiness should report it. */
  recentResetAt(): number | undefined {
    const at = this.#lastResetAt;
    return at !== undefined && this.#now() - at < this.#t.reportForMs ? at : undefined;
  }

  /**
   * For the upload path (`JobService.start`): true when the upload was started before a
   * recent loss of the store — its thread holds the bot's status message for the file. Looks
   * at the epoch first (a GET); reads the thread only within `guardForMs` of a loss. A thread
   * that cannot be read counts as not started: one job too many beats an upload lost.
   */
  async alreadyStarted(origin: Origin, source: SourceFile): Promise<boolean> {
    await this.check();
    const at = this.#lastResetAt;
    const { port } = this.#o;
    if (port === undefined || at === undefined || this.#now() - at >= this.#t.guardForMs) {
      return false;
    }
    try {
      return await port.threadHasStatusFor(origin, source.fileId);
    } catch (error) {
      this.#o.logger.warn(
        { err: error, file: source.fileId },
        "could not read the upload's thread",
      );
      return false;
    }
  }

  /** What App Home tells this person of a recent loss of their jobs, if anything. */
  async noticeFor(tenant: string, userId: string): Promise<ResetNotice | undefined> {
    const raw = await this.#o.store.get<unknown>("meta", noticeKey(tenant, userId));
    const parsed = resetNoticeSchema.safeParse(raw);
    if (!parsed.success || this.#now() - parsed.data.at >= this.#t.noticeForMs) return undefined;
    return parsed.data;
  }

  #onReset(): void {
    const at = this.#now();
    this.#lastResetAt = at;
    const known = this.#o.recent.list();
    this.#o.logger.error(
      { knownJobs: known.length },
      "store: the store lost its data (Redis restarted empty or flushed); its jobs are gone",
    );
    const handling = this.#tellPeople(known, at).catch((error: unknown) =>
      this.#o.logger.error({ err: error }, "store: could not tell people their jobs were lost"),
    );
    this.#handling.add(handling);
    void handling.finally(() => this.#handling.delete(handling));
  }

  /** The jobs this process knew whose records are gone: stopped, told, noted for App Home. */
  async #tellPeople(known: KnownJob[], at: number): Promise<void> {
    const { repo, runner, port, recent, logger } = this.#o;
    const lost: KnownJob[] = [];
    for (const job of known) {
      if (this.#stopped) return;
      // A record still there (a job started after the loss) was not lost; one that cannot
      // be read now is left alone rather than called lost.
      const record = await repo.get(job.id).catch(() => null);
      if (record === undefined) lost.push(job);
    }
    for (const job of lost) {
      recent.forget(job.id);
      await runner.discard(job.id).catch(() => undefined);
      await port?.tellJobLost(job).catch((error: unknown) => {
        logger.warn({ err: error, jobId: job.id }, "could not say a lost job was lost");
      });
    }
    await this.#leaveNotices(lost, at);
    logger.info({ lost: lost.length }, "store: people told of the jobs the store lost");
  }

  /** One App Home notice per person, naming their lost recordings. */
  async #leaveNotices(lost: KnownJob[], at: number): Promise<void> {
    const { store, workspaces, logger } = this.#o;
    const byPerson = Map.groupBy(lost, (job) =>
      noticeKey(tenantOfOrigin(job.origin), job.origin.userId),
    );
    for (const [key, jobs] of byPerson) {
      const files = [...new Set(jobs.map((job) => job.filename))].slice(0, NOTICE_FILES);
      const notice: ResetNotice = { at, files };
      const first = jobs[0];
      const tenant = first === undefined ? "" : tenantOfOrigin(first.origin);
      try {
        // Noted first, as every value a workspace leaves: an uninstall deletes it.
        await workspaces.note(tenant, "meta", key);
        await store.set("meta", key, notice, this.#t.noticeForMs);
      } catch (error) {
        logger.warn({ err: error }, "could not leave an App Home notice");
      }
    }
  }
}
