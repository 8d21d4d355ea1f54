import { randomUUID } from "node:crypto";
import type { StatsFs } from "node:fs";
import { statfs } from "node:fs/promises";
import { dirname } from "node:path";
import type { Config } from "../config.ts";
import { type Logger, quiet, toSlackLogger } from "../logger.ts";
import { slackAuthProbe } from "../slack/connection/connect-slack.ts";
import type { TokenWatch } from "../slack/connection/slack-troubles.ts";
import { platformErrorOf } from "../slack/gateway/slack-errors.ts";
import type { Store } from "../store/index.ts";
import { optional } from "../util/optional.ts";
import {
  createReadiness,
  DEFAULT_READINESS_TIMINGS,
  type Readiness,
  type ReadinessTimings,
} from "./readiness.ts";

/** What tests may change of the readiness checks: their pace, and the disk's floor. */
export interface ReadinessTuning {
  timings?: Partial<ReadinessTimings>;
  disk?: DiskProbeOptions;
}

export interface AppReadinessOptions {
  config: Pick<Config, "slack">;
  store: Store;
  /** Where recordings are downloaded: its disk must have room. */
  tempDir: string;
  /** When a download last found the disk full, while it is (the downloads know). */
  diskFullSince?: () => number | undefined;
  logger: Logger;
  /** Socket Mode: whether the socket is connected now. */
  socketConnected?: () => boolean;
  /** When the store last lost its data, while recent (the job layer's watch knows). */
  storeResetAt: () => number | undefined;
  /** Since when the Note Service has not been reached, once that has lasted (its calls know). */
  noteServiceDownSince?: () => number | undefined;
  tuning?: ReadinessTuning | undefined;
  /** Told what each `auth.test` found of the bot token. */
  tokens?: TokenWatch | undefined;
}

/** The app's readiness checks: a store write, Slack's `auth.test`, the temp disk, the socket. */
export function createAppReadiness(o: AppReadinessOptions): Readiness {
  const logger = o.logger.child({ name: "readiness" });
  const timings = { ...DEFAULT_READINESS_TIMINGS, ...o.tuning?.timings };
  const authTest = slackAuthProbe({
    botToken: o.config.slack.botToken,
    apiUrl: o.config.slack.apiUrl,
    timeoutMs: timings.deadlineMs,
    // The check logs changes; the client's line on every failed try would repeat it.
    logger: toSlackLogger(quiet(logger)),
  });
  return createReadiness({
    probeStore: storeWriteProbe(o.store, randomUUID()),
    slackAuthTest: () =>
      authTest().then(
        () => o.tokens?.accepted(),
        (error: unknown) => {
          o.tokens?.failed(platformErrorOf(error));
          throw error;
        },
      ),
    diskHasRoom: diskRoomProbe(o.tempDir, {
      ...optional("fullSince", o.diskFullSince),
      ...o.tuning?.disk,
    }),
    storeResetAt: o.storeResetAt,
    ...optional("noteServiceDownSince", o.noteServiceDownSince),
    logger,
    timings,
    ...optional("socketConnected", o.socketConnected),
  });
}

/** A write the store must take: a read says nothing of a SQLite file that cannot be written. */
export function storeWriteProbe(
  store: Pick<Store, "set">,
  instanceId: string,
  ttlMs = 60_000,
): () => Promise<void> {
  return () => store.set("meta", `ready-probe:${instanceId}`, Date.now(), ttlMs);
}

/** Below the smaller of these, the temp folder's disk counts as full. */
export const DISK_MIN_FREE = { bytes: 512 * 1024 * 1024, share: 0.05 } as const;

export interface DiskProbeOptions {
  min?: { bytes: number; share: number };
  /** When a write to the folder last found the disk full, while it is (downloads know). */
  fullSince?: () => number | undefined;
  statfs?: (path: string) => Promise<StatsFs>;
}

/** Resolves true while the disk of `dir` (or its nearest existing parent) has room. */
export function diskRoomProbe(dir: string, options: DiskProbeOptions = {}): () => Promise<true> {
  const min = options.min ?? DISK_MIN_FREE;
  const stat = options.statfs ?? ((path: string) => statfs(path));
  return async () => {
    const since = options.fullSince?.();
    if (since !== undefined) {
      throw new Error(`a write found the disk full at ${new Date(since).toISOString()}`);
    }
    const s = await statNearest(dir, stat);
    const free = s.bavail * s.bsize;
    const needed = Math.min(min.bytes, s.blocks * s.bsize * min.share);
    if (free < needed) throw new Error(`${free} bytes free for ${dir}, fewer than ${needed}`);
    return true;
  };
}

/** `statfs` of `dir`, or of its nearest parent that exists (the folder is made later). */
async function statNearest(
  dir: string,
  stat: (path: string) => Promise<StatsFs>,
): Promise<StatsFs> {
  for (let path = dir; ; path = dirname(path)) {
    try {
      return await stat(path);
    } catch (error) {
      const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
      if (!missing || dirname(path) === path) throw error;
    }
  }
}
