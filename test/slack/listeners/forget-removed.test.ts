import { randomBytes } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tenantOf } from "../../../src/jobs/index.ts";
import { installRecords } from "../../../src/slack/installs/install-records.ts";
import { EncryptedInstallationStore } from "../../../src/slack/installs/installation-store.ts";
import { runAsInstall } from "../../../src/slack/installs/request-tenant.ts";
import type { ListenerDeps } from "../../../src/slack/listeners/deps.ts";
import { workspaceLeft } from "../../../src/slack/listeners/events/app-uninstalled.ts";
import {
  carryOutRemoval,
  mergeRemovals,
  type Removal,
} from "../../../src/slack/listeners/forget-removed.ts";
import type { KeptForget } from "../../../src/slack/listeners/pending-starts.ts";
import { replayPendingStart } from "../../../src/slack/listeners/replay-pending.ts";
import { StoreFault } from "../../../support/helpers/failing-store.ts";
import {
  buildEventArgs,
  buildListenerDeps,
  type ListenerKit,
  startJob,
} from "../../../support/helpers/listener-args.ts";

/**
 * Forgetting as one unit with installs by OAuth: the install's record says whether a
 * removal is ours and goes last; a store failing anywhere keeps the removal whole for the
 * journal's replay, which finishes it once.
 */
const ALPHA = "T0ALPHA";
const INSTALL = `T${ALPHA}`;
const ORG = "E0ORG";
const ORG_INSTALL = `E${ORG}`;
const [ORG_ONE, ORG_TWO] = ["T0ORGONE", "T0ORGTWO"];
const BOT = "U0ALPHABOT";

let kit: ListenerKit;
let deps: ListenerDeps;
let records: EncryptedInstallationStore;
const fault = new StoreFault();
beforeEach(async () => {
  fault.mode = "none";
  fault.methods = new Set();
  kit = await buildListenerDeps({ wrapStore: (store) => fault.wrap(store) });
  records = new EncryptedInstallationStore({ store: kit.store, key: randomBytes(32) });
  deps = { ...kit.deps, installRecords: installRecords(records, () => {}) };
  const bot = { token: "xoxb-1", scopes: [], id: "B0BOT" };
  await records.storeInstallation({
    team: { id: ALPHA },
    enterprise: undefined,
    user: { id: "U0ADMIN", token: undefined, scopes: undefined },
    bot: { ...bot, userId: BOT },
    isEnterpriseInstall: false,
  });
  await records.storeInstallation({
    team: undefined,
    enterprise: { id: ORG },
    user: { id: "W0ADMIN", token: undefined, scopes: undefined },
    bot: { ...bot, userId: "W0ORGBOT" },
    isEnterpriseInstall: true,
  });
});
afterEach(() => kit.close());

const jobOf = (teamId: string, install: string) => startJob(kit, { teamId, install });
const exists = async (jobId: string) => (await kit.jobs.get(jobId)) !== undefined;
const replay = (entry: KeptForget) => replayPendingStart(deps)(entry);
/** How many passes deleted data (each ends with this line). */
const deletions = () => kit.logs.filter((l) => l.msg === "workspace data deleted").length;
/** An uninstall event (by default `app_uninstalled`) delivered as a request of `install`. */
const uninstall = (
  install: string,
  teamIds: string[],
  event: Record<string, unknown> = { type: "app_uninstalled" },
) =>
  runAsInstall(install, () =>
    workspaceLeft(deps)(buildEventArgs<"app_uninstalled">(kit, { team_id: teamIds[0], event })),
  );

describe("a removal with installs by OAuth", () => {
  it("is kept whole when the store fails at the install's record, and carried out once when it is back", async () => {
    const job = await jobOf(ALPHA, INSTALL);
    fault.mode = "all";
    await uninstall(INSTALL, [ALPHA], {
      type: "tokens_revoked",
      tokens: { oauth: [], bot: [BOT] },
    });
    const [kept] = kit.kept as KeptForget[];
    expect(kept).toMatchObject({
      kind: "forget",
      install: INSTALL,
      teamIds: [ALPHA],
      botUserIds: [BOT],
    });
    if (kept === undefined) throw new Error("nothing kept");
    expect(await replay(kept)).toEqual({ done: false });
    fault.mode = "none";
    expect(await exists(job.id)).toBe(true);
    expect(await records.read(INSTALL)).toBeDefined();
    expect(await replay(kept)).toEqual({ done: true });
    expect(await exists(job.id)).toBe(false);
    expect(await records.read(INSTALL)).toBeUndefined();
    // Once: again, it finds no install of its own, and does nothing.
    expect(await replay(kept)).toEqual({ done: true });
    expect(deletions()).toBe(1);
  });

  it("keeps the record while the data could not all go (the scrub failed), and the replay finishes", async () => {
    const job = await jobOf(ALPHA, INSTALL);
    fault.mode = "some";
    fault.methods = new Set(["scrub"]);
    await uninstall(INSTALL, [ALPHA]);
    const [kept] = kit.kept as KeptForget[];
    if (kept === undefined) throw new Error("nothing kept");
    fault.mode = "none";
    expect(await exists(job.id)).toBe(false);
    expect(await records.read(INSTALL)).toBeDefined();
    expect(await replay(kept)).toEqual({ done: true });
    expect(await records.read(INSTALL)).toBeUndefined();
    expect(await kit.store.listMembers("teams")).toEqual([]);
    // The first pass stopped at the scrub, before saying it was done.
    expect(deletions()).toBe(1);
  });

  it("does nothing for an install this deployment does not have, nor for another bot's tokens", async () => {
    const job = await jobOf(ALPHA, INSTALL);
    const never: Removal = { teamIds: ["T0NEVER"], install: "TT0NEVER" };
    const otherBot: Removal = { teamIds: [ALPHA], install: INSTALL, botUserIds: ["U0OTHER"] };
    expect(await carryOutRemoval(deps, never)).toBe(false);
    expect(await carryOutRemoval(deps, otherBot)).toBe(false);
    await uninstall("TT0NEVER", ["T0NEVER"]);
    expect(kit.kept).toEqual([]);
    expect(await exists(job.id)).toBe(true);
    expect(await records.read(INSTALL)).toBeDefined();
    expect(deletions()).toBe(0);
  });

  it("forgets a removed workspace of an org-wide install only, and keeps the install", async () => {
    const one = await jobOf(ORG_ONE, ORG_INSTALL);
    const two = await jobOf(ORG_TWO, ORG_INSTALL);
    fault.mode = "all";
    await runAsInstall(ORG_INSTALL, () =>
      workspaceLeft(deps)(
        buildEventArgs<"team_access_revoked">(kit, {
          team_id: null,
          enterprise_id: ORG,
          event: { type: "team_access_revoked", team_ids: [ORG_TWO] },
        }),
      ),
    );
    const [kept] = kit.kept as KeptForget[];
    expect(kept).toMatchObject({ install: ORG_INSTALL, teamIds: [ORG_TWO], scope: "workspaces" });
    if (kept === undefined) throw new Error("nothing kept");
    fault.mode = "none";
    expect(await replay(kept)).toEqual({ done: true });
    expect(await exists(two.id)).toBe(false);
    expect(await exists(one.id)).toBe(true);
    expect(await records.read(ORG_INSTALL)).toBeDefined();
    expect(await kit.store.listMembers("teams")).toEqual([tenantOf(ORG_INSTALL, ORG_ONE)]);
  });

  it("forgets an install whose record this key cannot read, on app_uninstalled (not on another's tokens)", async () => {
    const job = await jobOf(ALPHA, INSTALL);
    const other = new EncryptedInstallationStore({ store: kit.store, key: randomBytes(32) });
    deps = { ...kit.deps, installRecords: installRecords(other, () => {}) };
    expect(
      await carryOutRemoval(deps, { teamIds: [ALPHA], install: INSTALL, botUserIds: [BOT] }),
    ).toBe(false);
    expect(await carryOutRemoval(deps, { teamIds: [ALPHA], install: INSTALL })).toBe(true);
    expect(await exists(job.id)).toBe(false);
    expect(await kit.store.get("installs", INSTALL)).toBeUndefined();
  });
});

describe("the same removal kept twice", () => {
  const entry = (botUserIds?: string[]): KeptForget => ({
    kind: "forget",
    id: "k",
    at: 1,
    teamIds: [ALPHA],
    install: INSTALL,
    ...(botUserIds === undefined ? {} : { botUserIds }),
  });
  it("asks about bots only while every event did", () => {
    expect(mergeRemovals(entry(["U1"]), entry())).toEqual(entry());
    expect(mergeRemovals(entry(), entry(["U1"]))).toEqual(entry());
    expect(mergeRemovals(entry(["U1"]), entry(["U2"]))).toEqual(entry(["U1", "U2"]));
  });
});
