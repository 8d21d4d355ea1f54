import { mkdir, readdir, rm, rmdir, stat } from "node:fs/promises";
import { basename, dirname, join, relative, sep } from "node:path";
import { isActive, type Job } from "../model/job.ts";

/**
 * How old a file of no active job must be before the start-up sweep takes it: older than
 * any step could be (FFmpeg's longest allowed run, FFMPEG_TIMEOUT_MINUTES, is 24 hours). A
 * younger one may be a download whose job record the store does not show yet, or another
 * replica's, mid-write.
 */
export const ORPHAN_MIN_AGE_MS = 25 * 60 * 60_000;

/**
 * The job layer's temp folder. Each job's files (its recording, the audio FFmpeg prepared,
 * the DOCX) live in a folder of their own named after the job, private to the app's user
 * (0700): FFmpeg reads a recording there, and whatever a hostile file names beside itself
 * can only be that job's own files. Files can be matched to jobs even when no record names
 * them. (Files of earlier versions sit in the temp folder itself, named `<jobId>.<ext>`.)
 */
export class TempFiles {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
  }

  /** The folder of a job's files. */
  static folderOf(tempDir: string, jobId: string): string {
    return join(tempDir, jobId);
  }

  /** Makes the folder `path` is to be written in, private to the app's user. */
  static async makeFolderFor(path: string): Promise<void> {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  }

  /** The temp files a job record names. */
  static pathsOf(job: Job): string[] {
    const paths = [
      "tempPath" in job ? job.tempPath : undefined,
      "docxPath" in job ? job.docxPath : undefined,
    ];
    return paths.filter((path): path is string => path !== undefined);
  }

  /** The job a temp file belongs to: its folder's name, or (earlier versions) its name's stem. */
  jobIdOf(path: string): string {
    const inside = relative(this.dir, path).split(sep);
    if (inside.length > 1 && inside[0] !== undefined) return inside[0];
    const name = basename(path);
    const dot = name.indexOf(".");
    return dot === -1 ? name : name.slice(0, dot);
  }

  /** Deletes the files a job names, and its folder once empty. */
  async removeNamedBy(job: Job): Promise<void> {
    await Promise.all(TempFiles.pathsOf(job).map((path) => rm(path, { force: true })));
    await rmdir(TempFiles.folderOf(this.dir, job.id)).catch(() => undefined);
  }

  /** Deletes every file of a job, named in its record or not (a canceled job's record no longer names them). */
  async removeAllOf(jobId: string): Promise<void> {
    const names = await this.#names();
    await Promise.all(
      names
        .filter((name) => name === jobId || name.startsWith(`${jobId}.`))
        .map((name) => rm(join(this.dir, name), { force: true, recursive: true })),
    );
  }

  /**
   * Deletes what a crash left (files written between a step's last save and its clean-up):
   * files of jobs that are not active (finished, or unknown to the store) and older than
   * {@link ORPHAN_MIN_AGE_MS}, then their folders once empty; returns how many files. A
   * file of an active job is never touched, named in its record yet or not: on a shared
   * disk it may be another replica's download mid-write. `now` is the wall clock files'
   * times are read on.
   */
  async removeOrphans(
    lookup: (jobId: string) => Promise<Job | undefined>,
    now: number = Date.now(),
  ): Promise<number> {
    const paths = await this.#files();
    const folders = await this.#names();
    // Only the jobs this disk has files or folders of are read, however many the store holds.
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
    // Folders of jobs no longer active, once nothing young is left in them.
    for (const name of folders) {
      if (!active.has(name)) await rmdir(join(this.dir, name)).catch(() => undefined);
    }
    return orphans.length;
  }

  #names(): Promise<string[]> {
    return readdir(this.dir).catch(() => []);
  }

  /** Every file here: in the temp folder itself (earlier versions) and in job folders. */
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
