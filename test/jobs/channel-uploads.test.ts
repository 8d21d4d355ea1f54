import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ChannelUploads } from "../../src/jobs/persistence/channel-uploads.ts";
import { WorkspaceData } from "../../src/jobs/persistence/workspace-data.ts";
import { openStore, type Store } from "../../src/store/index.ts";

let store: Store;
let data: WorkspaceData;
let uploads: ChannelUploads;
beforeEach(async () => {
  store = await openStore("memory://");
  data = new WorkspaceData(store, pino({ level: "silent" }));
  uploads = new ChannelUploads({ store, workspaces: data, retentionMs: 60_000 });
});
afterEach(() => store.close());

const upload = (ts: string, text?: string) => ({
  ts,
  userId: "U0ALICE001",
  ...(text === undefined ? {} : { text }),
  files: [{ id: `F${ts.replace(".", "")}`, name: `${ts}.m4a`, recording: true }],
});

describe("ChannelUploads", () => {
  it("finds an upload by its channel and ts, under its tenant only", async () => {
    await uploads.saw("T1", "C1", upload("1700000000.000100", "Agenda: hiring"));
    expect(await uploads.at("T1", "C1", "1700000000.000100")).toEqual(
      upload("1700000000.000100", "Agenda: hiring"),
    );
    expect(await uploads.at("T1", "C2", "1700000000.000100")).toBeUndefined();
    expect(await uploads.at("T2", "C1", "1700000000.000100")).toBeUndefined();
  });

  it("lists a channel's latest uploads, newest first, each once", async () => {
    for (const ts of ["1.000001", "1.000002", "1.000003"])
      await uploads.saw("T1", "C1", upload(ts));
    await uploads.saw("T1", "C1", upload("1.000002"));
    const recent = await uploads.recent("T1", "C1", 10);
    expect(recent.map((u) => u.ts)).toEqual(["1.000002", "1.000003", "1.000001"]);
    expect((await uploads.recent("T1", "C1", 1)).map((u) => u.ts)).toEqual(["1.000002"]);
    expect(await uploads.recent("T1", "C9", 10)).toEqual([]);
  });

  it("notes what it keeps under the tenant, so forgetting the workspace deletes it", async () => {
    await uploads.saw("T1", "C1", upload("1.000001", "Salary review"));
    await uploads.saw("T2", "C1", upload("1.000001", "Kept"));
    await data.deleteListed("T1", await data.keysOf("T1"));
    expect(await uploads.at("T1", "C1", "1.000001")).toBeUndefined();
    expect(await uploads.recent("T1", "C1", 10)).toEqual([]);
    expect((await uploads.at("T2", "C1", "1.000001"))?.text).toBe("Kept");
  });

  it("keeps uploads for the retention period only", async () => {
    const brief = new ChannelUploads({ store, workspaces: data, retentionMs: 20 });
    await brief.saw("T1", "C1", upload("1.000001"));
    const gone = await waitUntil(
      async () => (await brief.at("T1", "C1", "1.000001")) === undefined,
    );
    expect(gone).toBe(true);
  });
});

/** Polls `check` until it holds (an expiry is the store's own timer). */
async function waitUntil(check: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return false;
}
