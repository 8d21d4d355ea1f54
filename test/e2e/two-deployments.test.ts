import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startProcesses } from "../../support/e2e/processes.ts";
import { ALICE, CHANNEL, eventually, SIGNING_SECRET } from "../../support/e2e/stack.ts";
import { fileShareMessageEvent } from "../../support/fake-slack/slack-payloads.ts";
import { sendEvent } from "../../support/fake-slack/slack-request.ts";
import { recordingBytes } from "../../support/fakes/recording-bytes.ts";
import {
  HAS_REDIS_SERVER,
  type PrivateRedis,
  startPrivateRedis,
} from "../../support/helpers/redis-server.ts";
import { type AppProcess, spawnApp } from "../../support/helpers/spawn-app.ts";

/**
 * Two deployments of the bot on one host, each with its own store — two SQLite files in
 * one folder, or two databases of one Redis — and the host's one temp folder (TMPDIR).
 * Each is stopped mid-outage with an upload kept in its request journal; then the second
 * starts again. Its start-up sweep must leave the first's files alone, and its journal
 * replay must take its own upload only, leaving the first's journal as it was: the first
 * replays that itself. The test finds where each process put its files by looking at what
 * appeared on disk, not by asking the code where it puts them.
 */
const FAULTY_MAIN = fileURLToPath(
  new URL("../../support/helpers/faulty-store-main.ts", import.meta.url),
);

type World = Awaited<ReturnType<typeof startProcesses>>;
let world: World;
let redis: PrivateRedis | undefined;
const running: AppProcess[] = [];

beforeAll(async () => {
  world = await startProcesses();
  redis = HAS_REDIS_SERVER ? await startPrivateRedis() : undefined;
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((app) => app.stop("SIGKILL")));
});
afterAll(async () => {
  await redis?.stop();
  await world?.stop();
});

/** Every folder and file under `root`, relative paths, folders ending in "/". */
async function tree(root: string): Promise<Set<string>> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return new Set(
    entries.map((e) => {
      const path = join(e.parentPath, e.name).slice(root.length + 1);
      return e.isDirectory() ? `${path}/` : path;
    }),
  );
}

/** Folders that appeared under `roots` since `before`, and hold no other new folder. */
async function newLeafFolders(roots: string[], before: Set<string>[]): Promise<string[]> {
  const found: string[] = [];
  for (const [i, root] of roots.entries()) {
    const now = [...(await tree(root))].filter((p) => p.endsWith("/") && !before[i]?.has(p));
    const leaves = now.filter((p) => !now.some((q) => q !== p && q.startsWith(p)));
    found.push(...leaves.map((p) => join(root, p)));
  }
  return found;
}

/**
 * The journal under `roots` holding a whole line naming `name`. Only journals are read: the
 * job's record in a SQLite file names the upload too, and its bytes may follow it with a newline.
 */
async function keptIn(roots: string[], name: string): Promise<string | undefined> {
  for (const root of roots) {
    for (const path of await tree(root)) {
      if (!path.endsWith("pending.jsonl")) continue;
      const text = await readFile(join(root, path), "utf8").catch(() => "");
      if (text.split("\n").some((line) => line.endsWith("}") && line.includes(name))) {
        return join(root, path);
      }
    }
  }
  return undefined;
}

function upload(name: string) {
  const file = world.fake.addFile({ name, bytes: recordingBytes(name), user: ALICE });
  const message = world.fake.shareFile(file, { channel: CHANNEL, user: ALICE });
  return fileShareMessageEvent(file, { channel: CHANNEL, user: ALICE, ts: message.ts });
}

const replayedBy = (app: AppProcess) =>
  app.lines
    .filter((line) => line.includes('"msg":"kept requests replayed"'))
    .map((line) => JSON.parse(line) as { replayed: number; left: number });

interface Deployments {
  /** The folder two SQLite files sit in, or none. */
  data?: string;
  storeUrls: [string, string];
}

async function keepTheirFilesApart(setup: (host: string) => Promise<Deployments>) {
  const host = join(world.temp.dir, `host-${randomUUID().slice(0, 8)}`);
  const tmp = join(host, "tmp");
  await mkdir(tmp, { recursive: true, mode: 0o700 });
  const { data, storeUrls } = await setup(host);
  const roots = data === undefined ? [tmp] : [tmp, data];
  const flags = [join(host, "store-down-a"), join(host, "store-down-b")];
  const envOf = (i: number) => ({
    ...world.env,
    STORE_URL: storeUrls[i] ?? "",
    TMPDIR: tmp,
    STORE_FAULT_FILE: flags[i] ?? "",
  });
  const start = async (i: number) => {
    const app = await spawnApp(envOf(i), FAULTY_MAIN);
    running.push(app);
    return app;
  };

  // The first starts alone: the folder it made is its temp folder.
  const before = await Promise.all(roots.map(tree));
  const first = await start(0);
  const [firstTemp, ...more] = await newLeafFolders(roots, before);
  expect(more).toEqual([]);
  if (firstTemp === undefined) throw new Error("the first deployment made no temp folder");
  const second = await start(1);

  // Both stores fail; each deployment keeps an upload in its request journal.
  for (const flag of flags) await writeFile(flag, "");
  const names = [`first-${randomUUID()}.m4a`, `second-${randomUUID()}.m4a`];
  for (const [i, app] of [first, second].entries()) {
    const event = upload(names[i] ?? "");
    const sent = await sendEvent(app.url, SIGNING_SECRET, event, { teamId: world.fake.teamId });
    expect(sent.status).toBe(200);
    await eventually(
      () => keptIn(roots, names[i] ?? ""),
      (path) => path !== undefined,
      { what: `deployment ${i + 1}'s upload in a journal`, timeoutMs: 15_000 },
    );
  }
  await Promise.all([first.stop("SIGKILL"), second.stop("SIGKILL")]);
  for (const flag of flags) await rm(flag);
  const firstJournal = (await keptIn(roots, names[0] ?? "")) ?? "";
  const journalText = await readFile(firstJournal, "utf8");
  // A file of a job of the first deployment's, in its temp folder.
  const planted = join(firstTemp, randomUUID(), "recording.m4a");
  await mkdir(join(planted, ".."), { mode: 0o700 });
  await writeFile(planted, "audio of the first deployment", { mode: 0o600 });

  // The second starts again: it sweeps its temp folder and replays its journal.
  const again = await start(1);
  const replayed = await eventually(
    () => replayedBy(again),
    (lines) => lines.length > 0,
    { what: "the second deployment's replay", timeoutMs: 20_000 },
  );
  await again.stop("SIGKILL");
  expect(replayed.map((r) => r.replayed)).toEqual([1]);
  expect(existsSync(planted)).toBe(true);
  expect(await readFile(firstJournal, "utf8")).toBe(journalText);
  expect(await keptIn(roots, names[1] ?? "")).toBeUndefined();

  // The first's upload is still its own to replay.
  const firstAgain = await start(0);
  const own = await eventually(
    () => replayedBy(firstAgain),
    (lines) => lines.length > 0,
    { what: "the first deployment's replay", timeoutMs: 20_000 },
  );
  expect(own.map((r) => r.replayed)).toEqual([1]);
}

describe("two deployments on one host", () => {
  it("with two SQLite files in one folder, keep their temp folders and journals apart", async () => {
    await keepTheirFilesApart(async (host) => {
      const data = join(host, "data");
      await mkdir(data, { mode: 0o700 });
      return { data, storeUrls: [`sqlite://${data}/a.sqlite`, `sqlite://${data}/b.sqlite`] };
    });
  }, 90_000);

  it.skipIf(!HAS_REDIS_SERVER)(
    "with two databases of one Redis, keep their temp folders and journals apart",
    async () => {
      const url = redis?.url ?? "";
      await keepTheirFilesApart(async () => ({ storeUrls: [`${url}/1`, `${url}/2`] }));
    },
    90_000,
  );
});
