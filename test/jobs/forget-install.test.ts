import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, describe, expect, it } from "vitest";
import {
  Admission,
  createServices,
  defaultAdmissionLimits,
  JobRepository,
} from "../../src/jobs/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { origin, source } from "../../support/helpers/jobs-kit.ts";
import { deleteRedisKeys, redisEntries } from "../../support/helpers/redis-entries.ts";
import { HAS_REDIS, redisUrl } from "../../support/helpers/redis-url.ts";
import { occurrencesInStoreFiles, total } from "../../support/helpers/store-file-text.ts";

/**
 * An uninstall forgets the install's data under every id it was filed under: its own team,
 * a team hosting a Slack Connect channel it is in (the envelope's `team_id` there), an
 * enterprise. The ids are those of the Slack Connect fixture (test/fixtures/slack/).
 */
const OWN = "T_INSTALLED";
const HOST = "T_SOURCE";
const ENTERPRISE = "E_INSTALLED";
const TEAMS = [OWN, HOST, ENTERPRISE];
/** Unique texts planted under each id: a context, a speaker's name, a channel's context. */
const planted = (teamId: string) => [
  `context-of-${teamId}-5d1f`,
  `Speaker Name ${teamId} 8e2a`,
  `channel-context-${teamId}-0b7c`,
];

// Made now, not in a hook: the backends below are listed when the file loads.
const dir = mkdtempSync(join(tmpdir(), "mn-forget-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Backend {
  name: string;
  open(): Promise<Store>;
  /** Every stored key and value of the store as text, after it is closed. */
  leftovers?(): Promise<string[]>;
  /** The raw bytes of the store's files, after it is closed. */
  file?: string;
}

const backends: Backend[] = [
  { name: "memory", open: () => openStore("memory://") },
  {
    name: "sqlite",
    file: join(dir, "forget.sqlite"),
    open: () => openStore(`sqlite://${join(dir, "forget.sqlite")}`),
  },
];
if (HAS_REDIS) {
  const keyPrefix = `mn-test-forget-${randomUUID().slice(0, 8)}`;
  backends.push({
    name: "redis",
    open: () => openStore(redisUrl(), { keyPrefix }),
    leftovers: async () => {
      const entries = await redisEntries(redisUrl(), `${keyPrefix}:*`);
      await deleteRedisKeys(redisUrl(), `${keyPrefix}:*`);
      return entries;
    },
  });
}

describe.each(backends)("forgetInstall on $name", (backend) => {
  it("deletes the data of every team id and the enterprise id, and scrubs the store", async () => {
    const store = await backend.open();
    const scrubbed: number[] = [];
    const watched = new Proxy(store, {
      get(target, name) {
        const value = Reflect.get(target, name, target);
        if (name === "scrub") return async () => scrubbed.push(await target.scrub().then(() => 1));
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const { service, services, aborted, discarded } = jobService(watched);
    const jobIds: string[] = [];
    for (const teamId of TEAMS) {
      const [context, speaker, channelContext] = planted(teamId);
      const started = await service.start({
        origin: origin({ teamId, channelId: "C1", userId: "U1" }),
        source: source(),
        options: { contextText: context, speakers: [{ name: speaker ?? "" }] },
      });
      if (started.status !== "created") throw new Error(started.status);
      jobIds.push(started.job.id);
      const templateId = await services.templates.save({ teamId, channelId: "C1" }, "t.docx", docx);
      await services.settings.set(teamId, "C1", {
        autoTranscribe: false,
        contextText: channelContext,
        templateId,
      });
    }

    // The uninstall names the install's own team (and enterprise): the host team is found
    // because its data was listed under the install's teams when it was noted.
    const forgotten = await services.installs.forget([OWN, ENTERPRISE]);
    expect(forgotten.teamIds.sort()).toEqual([...TEAMS].sort());
    expect(forgotten.jobs).toBe(3);
    expect(scrubbed).toHaveLength(1);
    expect(aborted.sort()).toEqual([...jobIds].sort());
    expect(discarded.sort()).toEqual([...jobIds].sort());
    for (const id of jobIds) expect(await service.get(id)).toBeUndefined();
    for (const teamId of TEAMS) {
      expect(await service.listByChannel(teamId, "C1")).toEqual([]);
      expect(await service.listByUser(teamId, "U1")).toEqual([]);
      expect(await services.settings.get(teamId, "C1")).toMatchObject({
        autoTranscribe: true,
      });
      expect(await store.listMembers(`team:${teamId}`)).toEqual([]);
    }
    expect(await store.listMembers("teams")).toEqual([]);
    expect(await store.listActive()).toEqual([]);
    // Once more (the second of app_uninstalled and tokens_revoked): nothing left to do.
    expect(await services.installs.forget([OWN])).toEqual({ teamIds: [OWN], jobs: 0, values: 0 });
    await store.close();

    const texts = TEAMS.flatMap(planted);
    if (backend.file !== undefined) {
      expect(total(await occurrencesInStoreFiles(backend.file, texts))).toBe(0);
    }
    if (backend.leftovers !== undefined) {
      const left = await backend.leftovers();
      for (const text of texts) expect(left.filter((entry) => entry.includes(text))).toEqual([]);
      const dataKeys = /:(jobs|blobs|settings|templates|index|set):/;
      expect(left.filter((entry) => dataKeys.test(entry.split(" = ")[0] ?? ""))).toEqual([]);
    }
  });
});

describe("forgetInstall, besides", () => {
  it("deletes the blobs no record names any more (a note before a Regenerate)", async () => {
    const store = await openStore("memory://");
    const { service, services } = jobService(store);
    const started = await service.start({
      origin: origin({ teamId: HOST }),
      source: source(),
      options: {},
    });
    if (started.status !== "created") throw new Error(started.status);
    const gone = started.job.id;
    await store.set("blobs", `${gone}:earlier-note`, "# Notes by Speakername Quillfeather");
    // A blob of no job of the install (none is left once it is forgotten) stays.
    await store.set("blobs", "job-of-nobody:x", "# kept");
    await services.installs.forget([HOST]);
    expect(await store.listKeys("blobs", "")).toEqual(["job-of-nobody:x"]);
    await store.close();
  });
});

describe("forgetInstall of some workspaces of an install", () => {
  it("deletes the tenants of the workspaces named, and nothing else of the install or another", async () => {
    const store = await openStore("memory://");
    const { service, services } = jobService(store);
    const ORG = "EE0ORG";
    const tenants: [string, string][] = [
      [ORG, "T0ONE"],
      [ORG, "T0TWO"],
      ["TT0TWO", "T0TWO"],
    ];
    for (const [install, teamId] of tenants) {
      const started = await service.start({
        origin: origin({ teamId, install }),
        source: source(),
        options: {},
      });
      if (started.status !== "created") throw new Error(started.status);
      await services.settings.set(`${install}/${teamId}`, "C1", { autoTranscribe: false });
    }
    const forgotten = await services.installs.forget(["T0TWO"], ORG, "workspaces");
    expect(forgotten).toMatchObject({ teamIds: [`${ORG}/T0TWO`], jobs: 1 });
    expect((await store.listMembers("teams")).sort()).toEqual([`${ORG}/T0ONE`, "TT0TWO/T0TWO"]);
    await store.close();
  });
});

const docx = new Uint8Array([0x50, 0x4b, 3, 4, 7]);

function jobService(store: Store) {
  const logger = pino({ level: "silent" });
  const aborted: string[] = [];
  const discarded: string[] = [];
  const services = createServices({
    repo: new JobRepository(store, { retentionMs: 60_000, logger }),
    store,
    admission: new Admission({
      store,
      limits: defaultAdmissionLimits,
      logger,
      stillHolds: async () => true,
    }),
    logger,
    retentionMs: 60_000,
    runner: {
      kick: () => undefined,
      abort: (id) => aborted.push(id),
      settle: () => undefined,
      discard: async (id) => {
        discarded.push(id);
      },
    },
  });
  return { service: services.service, services, aborted, discarded };
}
