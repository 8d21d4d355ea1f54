import { createHash } from "node:crypto";
import type { Stats } from "node:fs";
import { lstat, mkdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { StartupError } from "./startup-error.ts";
import { DEFAULT_KEY_PREFIX, sqlitePathOf } from "./store/index.ts";

/**
 * Where one deployment keeps its files outside the store: the temp folder and the request
 * journal. Both follow the store, so two deployments on one host never touch each other's.
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
  keyPrefix?: string;
  /** The OS temp folder (`TMPDIR`), where a store that is not a file keeps its folder. */
  tempRoot?: string;
  /** A temp folder chosen by the caller (tests): used as it is, the journal beside it. */
  tempDir?: string;
  pid?: number;
}

/**
 * Beside a SQLite file (`<file>.tmp/`, `<file>.pending.jsonl`); else `meeting-notes-<id>/` in
 * the OS temp folder, `<id>` a hash of the store's identity without its password.
 */
export function deploymentPaths(storeUrl: string, o: DeploymentPathOptions = {}): DeploymentPaths {
  const ephemeral = /^memory:/i.test(storeUrl);
  const beside = sqlitePathOf(storeUrl) ?? o.tempDir;
  if (beside !== undefined) {
    const file = resolve(beside);
    const journalPath = `${file}.pending.jsonl`;
    return { tempDir: o.tempDir ?? `${file}.tmp`, journalPath, home: undefined, ephemeral };
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

/** A stable hash of a store that is not a file: Redis's address, db, user and key prefix. */
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
 * Makes the deployment's folders private (0700), or checks those that exist and the journal
 * (0600): another owner, group or other access, a link or the wrong kind stops the start.
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
  const refuse = (problem: string, fix: string, noun = "folder") => {
    const named =
      kind === "folder"
        ? `The ${noun} ${path}, where the bot keeps this deployment's files,`
        : `The request journal ${path}`;
    throw new StartupError(`${named} ${problem}: ${fix} and start the bot again.`);
  };
  if (found.isSymbolicLink()) {
    refuse("is a symbolic link", `remove the link (the bot makes a private ${kind} there)`);
  }
  if (kind === "folder" ? !found.isDirectory() : !found.isFile()) {
    refuse(`is not a ${kind}`, `move it away (the bot makes its ${kind} there)`, "path");
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
