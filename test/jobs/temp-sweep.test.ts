import { existsSync } from "node:fs";
import { mkdir, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ORPHAN_MIN_AGE_MS, TempFiles } from "../../src/jobs/files/temp-files.ts";
import type { Job } from "../../src/jobs/index.ts";
import { makeTempDir } from "../../support/helpers/temp-files.ts";

/*
 * Issue 34: a replica starting while another downloads must not delete that download. The
 * start-up sweep takes only what belongs to no active job and is older than any step.
 */

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let files: TempFiles;
const NOW = Date.parse("2026-12-07T12:00:00Z");

beforeEach(async () => {
  temp = await makeTempDir("mn-sweep-");
  files = new TempFiles(temp.dir);
});
afterEach(() => temp.cleanup());

/** A file in a job's folder, last written `ageMs` before {@link NOW}. */
async function fileOf(jobId: string, name: string, ageMs: number): Promise<string> {
  const path = join(TempFiles.folderOf(temp.dir, jobId), name);
  await TempFiles.makeFolderFor(path);
  await writeFile(path, "bytes");
  const at = (NOW - ageMs) / 1000;
  await utimes(path, at, at);
  return path;
}

const job = (id: string, stage: string, extra: Record<string, unknown> = {}) =>
  ({ id, stage, ...extra }) as unknown as Job;

describe("TempFiles.removeOrphans", () => {
  it("never touches a file of an active job, named in its record or not", async () => {
    const named = await fileOf("job-active", "source-1.m4a", 2 * ORPHAN_MIN_AGE_MS);
    const notYet = await fileOf("job-active", "source-2.m4a", 0);
    const jobs = new Map([["job-active", job("job-active", "downloading", { tempPath: named })]]);
    expect(await files.removeOrphans(async (id) => jobs.get(id), NOW)).toBe(0);
    expect(existsSync(named)).toBe(true);
    expect(existsSync(notYet)).toBe(true);
  });

  it("keeps a young file of a job the store does not show (another replica's, mid-write)", async () => {
    const young = await fileOf("job-unknown", "source-1.m4a", 60_000);
    expect(await files.removeOrphans(async () => undefined, NOW)).toBe(0);
    expect(existsSync(young)).toBe(true);
  });

  it("removes files of finished or unknown jobs older than any step, and their folders", async () => {
    const done = await fileOf("job-done", "note.docx", ORPHAN_MIN_AGE_MS + 1_000);
    const lost = await fileOf("job-lost", "source-1.m4a", ORPHAN_MIN_AGE_MS + 1_000);
    const jobs = new Map([["job-done", job("job-done", "done")]]);
    expect(await files.removeOrphans(async (id) => jobs.get(id), NOW)).toBe(2);
    expect(existsSync(done)).toBe(false);
    expect(existsSync(lost)).toBe(false);
    expect(existsSync(TempFiles.folderOf(temp.dir, "job-done"))).toBe(false);
    expect(existsSync(TempFiles.folderOf(temp.dir, "job-lost"))).toBe(false);
  });

  it("leaves an empty folder of an active job for its writer", async () => {
    await mkdir(TempFiles.folderOf(temp.dir, "job-starting"), { recursive: true });
    const jobs = new Map([["job-starting", job("job-starting", "downloading")]]);
    await files.removeOrphans(async (id) => jobs.get(id), NOW);
    expect(existsSync(TempFiles.folderOf(temp.dir, "job-starting"))).toBe(true);
  });
});
