import { mkdir, readdir, rm, rmdir } from "node:fs/promises";
import { basename, dirname, join, relative, sep } from "node:path";
import { isActive, type Job } from "../model/job.ts";

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
   * Deletes files no active job names (left by a crash between a step's last save and its
   * clean-up), and the folders of jobs no longer active; returns how many files. On a
   * shared disk, another replica's file is kept while its job names it; partial files
   * (`.part`) of an active job are left to their writer.
   */
  async removeOrphans(lookup: (jobId: string) => Promise<Job | undefined>): Promise<number> {
    const paths = await this.#files();
    // Only the jobs this disk has files of are read, however many jobs the store holds.
    const owners = [...new Set(paths.map((path) => this.jobIdOf(path)))];
    const active = new Set<string>();
    const referenced = new Set<string>();
    for (const job of await Promise.all(owners.map(lookup))) {
      if (job === undefined || !isActive(job)) continue;
      active.add(job.id);
      for (const path of TempFiles.pathsOf(job)) referenced.add(path);
    }
    const orphans = paths.filter(
      (path) =>
        !referenced.has(path) && !(active.has(this.jobIdOf(path)) && path.endsWith(".part")),
    );
    await Promise.all(orphans.map((path) => rm(path, { force: true })));
    // Folders left empty, and those of jobs no longer active.
    for (const name of await this.#names()) {
      const path = join(this.dir, name);
      if (active.has(name)) await rmdir(path).catch(() => undefined);
      else if (owners.includes(name) || (await isEmptyFolder(path))) {
        await rm(path, { force: true, recursive: true });
      }
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

async function isEmptyFolder(path: string): Promise<boolean> {
  return readdir(path).then(
    (names) => names.length === 0,
    () => false,
  );
}
