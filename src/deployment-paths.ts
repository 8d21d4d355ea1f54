import { createHash } from "node:crypto";
import type { Stats } from "node:fs";
import { lstat, mkdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { StartupError } from "./startup-error.ts";
import { DEFAULT_KEY_PREFIX, sqlitePathOf } from "./store/index.ts";

/**
 * Where one deployment keeps its files outside the store: the temp folder (recordings and
 * DOCX files between steps, a folder per job, swept of files no job of the store names at
 * each start) and the request journal (what Slack was told was taken while the store could
 * not record it, replayed into the store). Both follow the store, so two deployments on one
 * host — two stores — never sweep or replay each other's.
 */
export interface DeploymentPaths {
  readonly tempDir: string;
  readonly journalPath: string;
  /** The deployment's own folder holding both (Redis, memory); none beside a SQLite file. */
  readonly home: string | undefined;
  /** memory://: nothing of the store outlives the process, its folder neither. */
  readonly ephemeral: boolean;
}

export interface DeploymentPathOptions {
  /** The store's key prefix (Redis: several apps may share a server). */
  keyPrefix?: string;
  /** The OS temp folder (`TMPDIR`), where a store that is not a file keeps its folder. */
  tempRoot?: string;
  /** A temp folder chosen by the caller (tests): used as it is, the journal beside it. */
  tempDir?: string;
  /** memory://: the process the store lives in. */
  pid?: number;
}

/**
 * The paths of the deployment whose store `storeUrl` names: beside a SQLite file, named
 * after it (`<file>.tmp/`, `<file>.pending.jsonl`: the same volume); for Redis and memory, a
 * folder of the deployment's own in the OS temp folder, `meeting-notes-<id>/` holding
 * `files/` and `pending.jsonl`, where `<id>` is a hash of the store's identity (never its
 * password: a password changed names the same folder).
 */
export function deploymentPaths(storeUrl: string, o: DeploymentPathOptions = {}): DeploymentPaths {
  const ephemeral = /^memory:/i.test(storeUrl);
  const sqlite = sqlitePathOf(storeUrl);
  if (sqlite !== undefined) {
    const file = resolve(sqlite);
    const journalPath = `${file}.pending.jsonl`;
    return { tempDir: o.tempDir ?? `${file}.tmp`, journalPath, home: undefined, ephemeral };
  }
  if (o.tempDir !== undefined) {
    const journalPath = `${resolve(o.tempDir)}.pending.jsonl`;
    return { tempDir: o.tempDir, journalPath, home: undefined, ephemeral };
  }
  const id = storeIdentity(storeUrl, o.keyPrefix ?? DEFAULT_KEY_PREFIX, o.pid ?? process.pid);
  const home = join(o.tempRoot ?? tmpdir(), `meeting-notes-${id}`);
  return {
    tempDir: join(home, "files"),
    journalPath: join(home, "pending.jsonl"),
    home,
    ephemeral,
  };
}

/**
 * A short, stable name of a store that is not a file: Redis's host, port, database, user
 * and key prefix (what tells two deployments' data apart), hashed — the URL's password and
 * options are left out. A memory store is its process's alone.
 */
export function storeIdentity(storeUrl: string, keyPrefix: string, pid: number): string {
  let parts: unknown[];
  if (/^memory:/i.test(storeUrl)) parts = ["memory", pid];
  else {
    const url = new URL(storeUrl);
    const db = Number(url.pathname.replace(/^\//, "") || "0");
    const user = decodeURIComponent(url.username);
    parts = ["redis", url.hostname.toLowerCase(), url.port || "6379", db, user];
  }
  const digest = createHash("sha256").update(JSON.stringify([...parts, keyPrefix]));
  return digest.digest("hex").slice(0, 16);
}

/**
 * Makes the deployment's folders, private to the user the bot runs as (0700), or checks
 * those that exist, and the journal if there is one (0600): a folder or file another user
 * owns, one that group or others may open, a symbolic link or the wrong kind of entry stops
 * the start with one sentence naming it and the fix ({@link StartupError}). `uid`: whose
 * they must be (default this process's user).
 */
export async function claimDeploymentPaths(
  paths: DeploymentPaths,
  uid: number | undefined = process.getuid?.(),
): Promise<void> {
  for (const folder of [paths.home, paths.tempDir]) {
    if (folder !== undefined) await privateFolder(folder, uid);
  }
  const journal = await lstat(paths.journalPath).catch(absent);
  if (journal !== undefined) refuseUnlessPrivate(paths.journalPath, journal, "file", uid);
}

/** memory://: the deployment's folder goes with its process (a SQLite or Redis one stays). */
export async function releaseDeploymentPaths(paths: DeploymentPaths): Promise<void> {
  if (paths.ephemeral && paths.home !== undefined) {
    await rm(paths.home, { recursive: true, force: true });
  }
}

async function privateFolder(path: string, uid: number | undefined): Promise<void> {
  try {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    // Not recursive: a folder someone made first is found here, and checked, not taken as is.
    await mkdir(path, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "EEXIST") throw error;
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new StartupError(
      `The bot cannot make the folder ${path}, where it keeps this deployment's files (${code}): give its user a folder it may write to (TMPDIR, or the folder of STORE_URL's SQLite file) and start the bot again.`,
    );
  }
  refuseUnlessPrivate(path, await lstat(path), "folder", uid);
}

function refuseUnlessPrivate(
  path: string,
  found: Stats,
  kind: "folder" | "file",
  uid: number | undefined,
): void {
  const role = kind === "folder" ? "where the bot keeps this deployment's files" : "";
  const named = (noun: string) =>
    kind === "folder" ? `The ${noun} ${path}, ${role},` : `The request journal ${path}`;
  const refuse = (problem: string, fix: string) => {
    throw new StartupError(`${named("folder")} ${problem}: ${fix} and start the bot again.`);
  };
  if (found.isSymbolicLink()) {
    refuse("is a symbolic link", `remove the link (the bot makes a private ${kind} there)`);
  }
  if (kind === "folder" ? !found.isDirectory() : !found.isFile()) {
    throw new StartupError(
      `${named("path")} is not a ${kind}: move it away (the bot makes its ${kind} there) and start the bot again.`,
    );
  }
  if (uid !== undefined && found.uid !== uid) {
    refuse(
      `belongs to user ${found.uid}, not to user ${uid} the bot runs as`,
      "remove it (the bot makes it again) or give it to that user with chown,",
    );
  }
  if ((found.mode & 0o077) !== 0) {
    const mode = (found.mode & 0o777).toString(8).padStart(4, "0");
    const fix = kind === "folder" ? "700" : "600";
    refuse(
      `can be opened by other users (mode ${mode})`,
      `make it private with chmod ${fix} ${path}`,
    );
  }
}

function absent(error: NodeJS.ErrnoException): undefined {
  if (error.code === "ENOENT") return undefined;
  throw error;
}
