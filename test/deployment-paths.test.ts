import { chmod, lstat, mkdir, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import {
  claimDeploymentPaths,
  type DeploymentPaths,
  deploymentPaths,
  releaseDeploymentPaths,
} from "../src/deployment-paths.ts";
import { StartupError } from "../src/startup-error.ts";
import { startMain } from "../support/helpers/main-process.ts";
import { makeTempDir } from "../support/helpers/temp-files.ts";

let temp: Awaited<ReturnType<typeof makeTempDir>>;
beforeAll(async () => {
  temp = await makeTempDir("mn-deployment-paths-");
});
afterAll(() => temp.cleanup());

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;
/** What a refusal says: one sentence, ending with how to fix it. */
async function refusal(paths: DeploymentPaths, uid?: number): Promise<string> {
  const error = await claimDeploymentPaths(paths, uid).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StartupError);
  const message = (error as StartupError).message;
  expect(message).not.toContain("\n");
  expect(message.match(/[.!?](\s|$)/g)).toHaveLength(1);
  return message;
}

describe("deploymentPaths", () => {
  it("puts each SQLite store's temp folder and journal beside its own file", () => {
    const a = deploymentPaths("sqlite://data/a.sqlite");
    const b = deploymentPaths("sqlite://data/b.sqlite");
    expect(a).toEqual({
      tempDir: resolve("data/a.sqlite.tmp"),
      journalPath: resolve("data/a.sqlite.pending.jsonl"),
      home: undefined,
      ephemeral: false,
    });
    expect(b.tempDir).toBe(resolve("data/b.sqlite.tmp"));
    expect(deploymentPaths("sqlite:///srv/x.sqlite").tempDir).toBe("/srv/x.sqlite.tmp");
  });

  it("gives each Redis store (server, database, user, key prefix) a folder of its own in the OS temp folder", () => {
    const root = "/var/tmp/host";
    const home = (url: string, keyPrefix?: string) =>
      deploymentPaths(url, { tempRoot: root, ...(keyPrefix ? { keyPrefix } : {}) }).home;
    const one = home("redis://cache.internal:6379/1");
    expect(one).toMatch(/^\/var\/tmp\/host\/meeting-notes-[0-9a-f]{16}$/);
    const others = [
      home("redis://cache.internal:6379/2"),
      home("redis://other.internal:6379/1"),
      home("redis://cache.internal:6380/1"),
      home("redis://ops@cache.internal:6379/1"),
      home("redis://cache.internal:6379/1", "other-app"),
    ];
    expect(new Set([one, ...others]).size).toBe(others.length + 1);
    // The same store however it is spelled, and whatever its password or scheme.
    expect(home("redis://CACHE.internal/1")).toBe(one);
    expect(home("rediss://:s3cret-pass@cache.internal:6379/1")).toBe(one);
    const paths = deploymentPaths("redis://:s3cret-pass@cache.internal/1", { tempRoot: root });
    expect(paths.tempDir).toBe(`${one}/files`);
    expect(paths.journalPath).toBe(`${one}/pending.jsonl`);
    expect(JSON.stringify(paths)).not.toContain("s3cret");
    expect(deploymentPaths("redis://h").home?.startsWith(tmpdir())).toBe(true);
  });

  it("gives a memory store its process's own folder, gone with the process", () => {
    const a = deploymentPaths("memory://", { tempRoot: "/t", pid: 100 });
    const b = deploymentPaths("memory://", { tempRoot: "/t", pid: 101 });
    expect(a.home).not.toBe(b.home);
    expect(a.ephemeral).toBe(true);
    expect(deploymentPaths("redis://h", { tempRoot: "/t", pid: 100 }).ephemeral).toBe(false);
  });

  it("uses a temp folder the caller chose, with the journal beside it (or beside the SQLite file)", () => {
    expect(deploymentPaths("redis://h", { tempDir: "/x/tmp-0" })).toMatchObject({
      tempDir: "/x/tmp-0",
      journalPath: "/x/tmp-0.pending.jsonl",
    });
    expect(deploymentPaths("sqlite:///d/s.sqlite", { tempDir: "/x/tmp-0" })).toMatchObject({
      tempDir: "/x/tmp-0",
      journalPath: "/d/s.sqlite.pending.jsonl",
    });
  });
});

describe("claimDeploymentPaths", () => {
  let count = 0;
  /** A Redis deployment's paths in a temp root of the test's own. */
  const fresh = async () => {
    count += 1;
    const root = join(temp.dir, `root-${count}`);
    await mkdir(root, { mode: 0o755 });
    return deploymentPaths("redis://127.0.0.1:6379/3", { tempRoot: root });
  };

  it("makes the deployment's folders private to its user, and takes them again as they are", async () => {
    const paths = await fresh();
    await claimDeploymentPaths(paths);
    expect(await modeOf(paths.home ?? "")).toBe(0o700);
    expect(await modeOf(paths.tempDir)).toBe(0o700);
    await writeFile(paths.journalPath, "{}\n", { mode: 0o600 });
    await claimDeploymentPaths(paths);
  });

  it("refuses a folder other users may open, naming it and the chmod that fixes it", async () => {
    const paths = await fresh();
    await mkdir(paths.home ?? "", { mode: 0o700 });
    await chmod(paths.home ?? "", 0o777);
    const said = await refusal(paths);
    expect(said).toBe(
      `The folder ${paths.home}, where the bot keeps this deployment's files, can be opened by other users (mode 0777): make it private with chmod 700 ${paths.home} and start the bot again.`,
    );
    await chmod(paths.home ?? "", 0o700);
    await mkdir(paths.tempDir);
    await chmod(paths.tempDir, 0o750);
    expect(await refusal(paths)).toContain(`${paths.tempDir}, where the bot keeps`);
  });

  it("refuses a journal other users may read", async () => {
    const paths = await fresh();
    await claimDeploymentPaths(paths);
    await writeFile(paths.journalPath, "{}\n");
    await chmod(paths.journalPath, 0o644);
    expect(await refusal(paths)).toBe(
      `The request journal ${paths.journalPath} can be opened by other users (mode 0644): make it private with chmod 600 ${paths.journalPath} and start the bot again.`,
    );
  });

  it("refuses a folder or journal another user owns", async () => {
    const paths = await fresh();
    await claimDeploymentPaths(paths);
    const mine = (await lstat(paths.home ?? "")).uid;
    const other = mine + 4242;
    expect(await refusal(paths, other)).toBe(
      `The folder ${paths.home}, where the bot keeps this deployment's files, belongs to user ${mine}, not to user ${other} the bot runs as: remove it (the bot makes it again) or give it to that user with chown, and start the bot again.`,
    );
  });

  it("refuses a symbolic link where its folder or journal goes, and a file where a folder goes", async () => {
    const paths = await fresh();
    const elsewhere = join(temp.dir, `elsewhere-${count}`);
    await mkdir(elsewhere, { mode: 0o700 });
    await symlink(elsewhere, paths.home ?? "");
    expect(await refusal(paths)).toContain(
      `${paths.home}, where the bot keeps this deployment's files, is a symbolic link`,
    );

    const second = await fresh();
    await claimDeploymentPaths(second);
    await symlink(join(elsewhere, "journal"), second.journalPath);
    expect(await refusal(second)).toContain(`journal ${second.journalPath} is a symbolic link`);

    const third = await fresh();
    await writeFile(third.home ?? "", "");
    expect(await refusal(third)).toContain(
      `The path ${third.home}, where the bot keeps this deployment's files, is not a folder`,
    );
  });

  it("says in one sentence when it cannot make its folder, and where to give it one", async () => {
    // A file where the OS temp folder should be: refused whoever runs the test (root too).
    const notAFolder = join(temp.dir, "not-a-folder");
    await writeFile(notAFolder, "");
    const paths = deploymentPaths("redis://h", { tempRoot: notAFolder });
    const said = await refusal(paths);
    expect(said).toContain(`The bot cannot make the folder ${paths.home}, where it keeps`);
    expect(said).toMatch(
      / \((ENOTDIR|EEXIST)\): give its user a folder it may write to \(TMPDIR, or the folder of STORE_URL's SQLite file\) and start the bot again\.$/,
    );
  });

  it("removes a memory store's folder when it is released, and leaves any other", async () => {
    const root = join(temp.dir, "release");
    await mkdir(root);
    const memory = deploymentPaths("memory://", { tempRoot: root });
    const redis = deploymentPaths("redis://h", { tempRoot: root });
    await claimDeploymentPaths(memory);
    await claimDeploymentPaths(redis);
    await releaseDeploymentPaths(memory);
    await releaseDeploymentPaths(redis);
    await expect(stat(memory.home ?? "")).rejects.toThrow();
    expect(await modeOf(redis.tempDir)).toBe(0o700);
  });
});

describe("the bot's start", () => {
  it("stops with one sentence, naming the folder and the fix, when its temp folder is open to others", async () => {
    const data = join(temp.dir, "process");
    await mkdir(data, { mode: 0o700 });
    const folder = join(data, "store.sqlite.tmp");
    await mkdir(folder);
    await chmod(folder, 0o755);
    const app = startMain({
      SLACK_BOT_TOKEN: "xoxb-not-checked",
      SLACK_SIGNING_SECRET: "signing-secret-not-used-0123456789",
      NOTE_TAKER_BASE_URL: "http://127.0.0.1:9/api/v1/third-party/note-taker",
      NOTE_TAKER_API_KEY: "not-used",
      STORE_URL: `sqlite://${data}/store.sqlite`,
    });
    onTestFinished(async () => {
      await app.stop("SIGKILL");
    });
    expect(await app.exited).toBe(1);
    expect(app.stderr).toEqual([
      `The folder ${folder}, where the bot keeps this deployment's files, can be opened by other users (mode 0755): make it private with chmod 700 ${folder} and start the bot again.`,
    ]);
  });
});
