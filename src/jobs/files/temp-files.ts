import { mkdir, readdir, rm, rmdir, stat } from "node:fs/promises";
import { basename, dirname, join, relative, sep } from "node:path";
import { isActive, type Job } from "../model/job.ts";

/**
 * Older than any step could be (FFmpeg may run 24 hours): a younger file may be a download whose
 * record is not yet seen, or another replica's.
 */
export const ORPHAN_MIN_AGE_MS = 25 * 60 * 60_000;

/**
 * Each job's files live in a folder named after it, 0700: FFmpeg reads a recording there, and
 * whatever a hostile file names beside itself is that job's own.
 */
export class TempFiles {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
  }

  static folderOf(tempDir: string, jobId: string): string {
    return join(tempDir, jobId);
  }

  static async makeFolderFor(path: string): Promise<void> {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  }

  static pathsOf(job: Job): string[] {
    const paths = [
      "tempPath" in job ? job.tempPath : undefined,
      "docxPath" in job ? job.docxPath : undefined,
    ];
    return paths.filter((path): path is string => path !== undefined);
  }

  jobIdOf(path: string): string {
    const inside = relative(this.dir, path).split(sep);
    if (inside.length > 1 && inside[0] !== undefined) return inside[0];
    const name = basename(path);
    const dot = name.indexOf(".");
    return dot === -1 ? name : name.slice(0, dot);
  }

  async removeNamedBy(job: Job): Promise<void> {
    await Promise.all(TempFiles.pathsOf(job).map((path) => rm(path, { force: true })));
    await rmdir(TempFiles.folderOf(this.dir, job.id)).catch(() => undefined);
  }

  /** Named in its record or not: a canceled job's record no longer names them. */
  async removeAllOf(jobId: string): Promise<void> {
    const names = await this.#names();
    await Promise.all(
      names
        .filter((name) => name === jobId || name.startsWith(`${jobId}.`))
        .map((name) => rm(join(this.dir, name), { force: true, recursive: true })),
    );
  }

  /**
   * Deletes files a crash left of jobs not active and older than {@link ORPHAN_MIN_AGE_MS}, and
   * their empty folders; returns how many files. An active job's files are never touched: on a
   * shared disk they may be mid-write.
   */
  async removeOrphans(
    lookup: (jobId: string) => Promise<Job | undefined>,
    now: number = Date.now(),
  ): Promise<number> {
    const paths = await this.#files();
    const folders = await this.#names();
    // Only the jobs this disk has files of are read, however many the store holds.
    const owners = [...new Set([...paths.map((path) => this.jobIdOf(path)), ...folders])];
    const jobs = await Promise.all(owners.map(lookup));
    const active = new Set(jobs.filter((j) => j !== undefined && isActive(j)).map((j) => j?.id));
    const orphans: string[] = [];
    for (const path of paths) {
      if (active.has(this.jobIdOf(path))) continue;
      const modified = await stat(path).then(
        (s) => s.mtimeMs,
        () => now,
      );
      if (now - modified >= ORPHAN_MIN_AGE_MS) orphans.push(path);
    }
    await Promise.all(orphans.map((path) => rm(path, { force: true })));
    for (const name of folders) {
      if (!active.has(name)) await rmdir(join(this.dir, name)).catch(() => undefined);
    }
    return orphans.length;
  }

  #names(): Promise<string[]> {
    return readdir(this.dir).catch(() => []);
  }

  async #files(): Promise<string[]> {
    const entries = await readdir(this.dir, { withFileTypes: true }).catch(() => []);
    const files: string[] = [];
    for (const entry of entries) {
      const path = join(this.dir, entry.name);
      if (entry.isFile()) files.push(path);
      else if (entry.isDirectory()) {
        const inner = await readdir(path).catch(() => []);
        files.push(...inner.map((name) => join(path, name)));
      }
    }
    return files;
  }
}
