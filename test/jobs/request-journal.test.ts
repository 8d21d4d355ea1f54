import { appendFile, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { JournalReplay, type ReplayOutcome, RequestJournal } from "../../src/jobs/index.ts";
import { eventually } from "../../support/helpers/eventually.ts";
import { makeTempDir } from "../../support/helpers/temp-files.ts";

const entrySchema = z.object({ id: z.string(), at: z.number(), note: z.string() });
type Entry = z.infer<typeof entrySchema>;
const logger = pino({ level: "silent" });

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let path: string;
const journal = (maxBytes?: number) =>
  new RequestJournal<Entry>({
    path,
    schema: entrySchema,
    logger,
    ...(maxBytes === undefined ? {} : { maxBytes }),
  });
const entry = (id: string, at = Date.now()): Entry => ({ id, at, note: `upload ${id}` });
/** Resolves once the journal's file is gone: every entry replayed or dropped. */
const journalGone = () =>
  eventually(
    () =>
      stat(path).then(
        () => true,
        () => false,
      ),
    (exists) => !exists,
  );

beforeEach(async () => {
  temp = await makeTempDir("mn-journal-");
  path = join(temp.dir, "data", "store.sqlite.pending.jsonl");
});
afterEach(() => temp.cleanup());

describe("RequestJournal", () => {
  it("keeps entries on disk, readable by the app's user only, in order", async () => {
    const kept = journal();
    expect(await kept.keep(entry("a"))).toBe(true);
    expect(await kept.keep(entry("b"))).toBe(true);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    // A new process (a restart) reads what the last one kept.
    expect((await journal().read()).map((e) => e.id)).toEqual(["a", "b"]);
  });

  it("takes replayed entries out of the file and deletes it once none is left", async () => {
    const kept = journal();
    for (const id of ["a", "b", "c"]) await kept.keep(entry(id));
    const changed = new Map([["c", { ...entry("c"), note: "told" }]]);
    expect(await kept.settle(new Set(["a"]), changed)).toBe(2);
    const text = await readFile(path, "utf8");
    expect(text).not.toContain("upload a");
    expect(await kept.read()).toEqual([entry("b", (await kept.read())[0]?.at), changed.get("c")]);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await kept.settle(new Set(["b", "c"]), new Map())).toBe(0);
    await expect(stat(path)).rejects.toThrow(/ENOENT/);
  });

  it("keeps nothing past its size, and says so", async () => {
    const kept = journal(100);
    expect(await kept.keep(entry("a"))).toBe(true);
    expect(await kept.keep(entry("b"))).toBe(true);
    expect(await kept.keep(entry("c"))).toBe(false);
    expect((await kept.read()).map((e) => e.id)).toEqual(["a", "b"]);
  });

  it("drops a line cut short by a crash, and lines of another shape", async () => {
    const kept = journal();
    await kept.keep(entry("a"));
    await appendFile(path, '{"id":"x","at":1}\n{"id":"b","at":2,"no');
    expect((await kept.read()).map((e) => e.id)).toEqual(["a"]);
  });

  it("keeps one entry per request, merging a second delivery into the first", async () => {
    const kept = new RequestJournal<Entry>({
      path,
      schema: entrySchema,
      logger,
      keyOf: (e) => e.note,
      merge: (first, again) => (again.id === "c" ? { ...first, at: again.at } : first),
    });
    const first = { id: "a", at: 1, note: "upload F1" };
    await kept.keep(first);
    await kept.keep({ id: "b", at: 2, note: "upload F1" });
    expect(await kept.read()).toEqual([first]);
    await kept.keep({ id: "c", at: 3, note: "upload F1" });
    await kept.keep({ id: "d", at: 4, note: "upload F2" });
    expect(await kept.read()).toEqual([
      { ...first, at: 3 },
      { id: "d", at: 4, note: "upload F2" },
    ]);
  });

  it("says false when the file cannot be written", async () => {
    await writeFile(join(temp.dir, "data"), "a file where the folder should be");
    expect(await journal().keep(entry("a"))).toBe(false);
  });
});

describe("JournalReplay", () => {
  const backoff = { baseMs: 5, maxMs: 20 };

  it("replays what an earlier run kept, at start, until the journal is empty", async () => {
    await journal().keep(entry("a"));
    await journal().keep(entry("b"));
    const replayed: string[] = [];
    const replay = new JournalReplay({
      journal: journal(),
      logger,
      backoff,
      replay: async (e: Entry): Promise<ReplayOutcome<Entry>> => {
        replayed.push(e.id);
        return { done: true };
      },
    });
    replay.start();
    await journalGone();
    await replay.stop();
    expect(replayed).toEqual(["a", "b"]);
  });

  it("waits while the store fails, stopping each pass at the first entry, and keeps what it learned", async () => {
    let storeUp = false;
    const tries: string[] = [];
    const waited = new Set<string>();
    const replay = new JournalReplay({
      journal: journal(),
      logger,
      backoff,
      replay: async (e: Entry): Promise<ReplayOutcome<Entry>> => {
        tries.push(e.id);
        return storeUp ? { done: true } : { done: false, entry: { ...e, note: "tried" } };
      },
      // Every entry left waiting is seen, the one tried as it was learned.
      waiting: async (e: Entry) => {
        waited.add(`${e.id}:${e.note}`);
        return e;
      },
    });
    replay.start();
    await replay.keep(entry("a"));
    await replay.keep(entry("b"));
    await eventually(
      () => tries.length,
      (n) => n >= 3,
    );
    // Each pass stops at "a": "b" waits with it.
    expect(tries.every((id) => id === "a")).toBe(true);
    expect((await journal().read())[0]?.note).toBe("tried");
    expect(waited).toEqual(new Set(["a:tried", "b:upload b"]));
    storeUp = true;
    await journalGone();
    await replay.stop();
    expect(tries.slice(-2)).toEqual(["a", "b"]);
  });

  it("drops an entry older than its age limit instead of replaying it", async () => {
    await journal().keep(entry("old", Date.now() - 60_000));
    const replayed: string[] = [];
    const replay = new JournalReplay({
      journal: journal(),
      logger,
      backoff,
      maxAgeMs: 30_000,
      replay: async (e: Entry): Promise<ReplayOutcome<Entry>> => {
        replayed.push(e.id);
        return { done: true };
      },
    });
    replay.start();
    await journalGone();
    await replay.stop();
    expect(replayed).toEqual([]);
  });
});
