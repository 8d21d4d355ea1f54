import type { Logger } from "pino";
import { z } from "zod";
import type { EpochCheck, Store } from "../../store/index.ts";
import type { JobRunner } from "../engine/runner.ts";
import type { Origin, SourceFile } from "../model/job-parts.ts";
import { tenantOfOrigin } from "../model/tenant.ts";
import type { JobRepository } from "../persistence/job-repository.ts";
import type { KnownJob, RecentJobs } from "../persistence/recent-jobs.ts";
import type { WorkspaceData } from "../persistence/workspace-data.ts";
import type { StoreResetPort } from "../ports.ts";

export const resetNoticeSchema = z.object({
  at: z.number(),
  files: z.array(z.string()),
});
export type ResetNotice = z.infer<typeof resetNoticeSchema>;

const MINUTE_MS = 60_000;
const DEFAULT_TIMINGS = {
  checkEveryMs: 5_000,
  reportForMs: 15 * MINUTE_MS,
  /** Slack retries an event for minutes: an upload whose claim was lost looks in its thread. */
  guardForMs: 60 * MINUTE_MS,
  noticeForMs: 3 * 24 * 60 * MINUTE_MS,
};
export type StoreResetTimings = typeof DEFAULT_TIMINGS;

const NOTICE_FILES = 10;

export interface StoreResetWatchOptions {
  store: Pick<Store, "checkEpoch" | "get" | "set">;
  repo: Pick<JobRepository, "get">;
  recent: RecentJobs;
  runner: Pick<JobRunner, "discard">;
  /** Noted, so an uninstall deletes them (they name recordings). */
  workspaces: Pick<WorkspaceData, "note">;
  /** Without it, a loss is logged and reported only. */
  port?: StoreResetPort | undefined;
  logger: Logger;
  now?: () => number;
  timings?: Partial<StoreResetTimings>;
}

const noticeKey = (teamId: string, userId: string) => `store-reset:${teamId}:${userId}`;

/**
 * Detects by its epoch a store that lost its data (a Redis restarted empty or flushed), which would
 * otherwise strand every running job silently; the claims went too, so uploads check their thread.
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
    this.#t = { ...DEFAULT_TIMINGS, ...options.timings };
    this.#now = options.now ?? Date.now;
  }

  async start(): Promise<void> {
    this.#stopped = false;
    await this.check();
    this.#timer = setInterval(() => void this.check(), this.#t.checkEveryMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await Promise.all(this.#handling);
  }

  /** A look already under way is shared; undefined when the store could not be read. */
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

  recentResetAt(): number | undefined {
    const at = this.#lastResetAt;
    return at !== undefined && this.#now() - at < this.#t.reportForMs ? at : undefined;
  }

  /**
   * True when the upload's thread holds the bot's status message for its file within `guardForMs`
   * of a loss. An unreadable thread counts as not started: one job too many beats an upload lost.
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

  async #tellPeople(known: KnownJob[], at: number): Promise<void> {
    const { repo, runner, port, recent, logger } = this.#o;
    const lost: KnownJob[] = [];
    for (const job of known) {
      if (this.#stopped) return;
      // A record that cannot be read now is left alone rather than called lost.
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
