import { readdir, rm } from "node:fs/promises";
import { basename, join } from "node:path";
import { isActive, type Job } from "./job.ts";

/**
 * The job layer's temp folder. Recordings and DOCX files are named after their job
 * (`<jobId>.<ext>`), so files can be matched to jobs even when no record names them.
 */
export class TempFiles {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
  }

  /** The temp files a job record names. */
  static pathsOf(job: Job): string[] {
    const paths = [
      "tempPath" in job ? job.tempPath : undefined,
      "docxPath" in job ? job.docxPath : undefined,
    ];
    return paths.filter((path): path is string => path !== undefined);
  }

  /** The job a temp file belongs to: files are named `<jobId>.<ext>`. */
  static jobIdOf(path: string): string {
    const name = basename(path);
    const dot = name.indexOf(".");
    return dot === -1 ? name : name.slice(0, dot);
  }

  /** Deletes the files a job names. */
  async removeNamedBy(job: Job): Promise<void> {
    await Promise.all(TempFiles.pathsOf(job).map((path) => rm(path, { force: true })));
  }

  /** Deletes every file of a job, named in its record or not (a canceled job's record no longer names them). */
  async removeAllOf(jobId: string): Promise<void> {
    const names = await this.#names();
    await Promise.all(
      names
        .filter((name) => name.startsWith(jobId))
        .map((name) => rm(join(this.dir, name), { force: true })),
    );
  }

  /**
   * Deletes files no active job names (left by a crash between a step's last save and its
   * clean-up); returns how many. On a shared disk, another replica's file is kept while
   * its job names it; partial downloads (`.part`) are left to their writer.
   */
  async removeOrphans(lookup: (jobId: string) => Promise<Job | undefined>): Promise<number> {
    const paths = (await this.#names())
      .map((name) => join(this.dir, name))
      .filter((path) => !path.endsWith(".part"));
    // Only the jobs this disk has files of are read, however many jobs the store holds.
    const owners = [...new Set(paths.map((path) => TempFiles.jobIdOf(path)))];
    const referenced = new Set<string>();
    for (const job of await Promise.all(owners.map(lookup))) {
      if (job === undefined || !isActive(job)) continue;
      for (const path of TempFiles.pathsOf(job)) referenced.add(path);
    }
    const orphans = paths.filter((path) => !referenced.has(path));
    await Promise.all(orphans.map((path) => rm(path, { force: true })));
    return orphans.length;
  }

  #names(): Promise<string[]> {
    return readdir(this.dir).catch(() => []);
  }
}
