import type { StatsFs } from "node:fs";
import { statfs } from "node:fs/promises";
import { dirname } from "node:path";
import type { Store } from "../store/index.ts";

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
