import { WebClient } from "@slack/web-api";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { isTenantOf, type Job, SINGLE_INSTALL, tenantOf } from "../../../src/jobs/index.ts";
import { slackHostsOf } from "../../../src/slack/gateway/download-slack-file.ts";
import { SlackGateway } from "../../../src/slack/gateway/slack-gateway.ts";
import {
  InstallClientCache,
  type MakeInstallClient,
  withInstallToken,
} from "../../../src/slack/installs/install-clients.ts";
import { installKeyOf } from "../../../src/slack/installs/install-key.ts";
import type { TokenSource } from "../../../src/slack/installs/token-source.ts";
import { origin, source } from "../../../support/helpers/jobs-kit.ts";

/** A Slack that answers `ok` to `good` tokens and `error` to every other. */
function slack(good: Set<string>, error = "token_expired") {
  const seen: string[] = [];
  const fetch = async (_input: string | URL | Request, init: RequestInit = {}) => {
    const token = new Headers(init.headers).get("authorization")?.replace("Bearer ", "") ?? "";
    seen.push(token);
    const body = good.has(token) ? { ok: true } : { ok: false, error };
    return new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } });
  };
  return { fetch, seen };
}

function tokens(current: string, fresh: string | undefined) {
  const refused: string[] = [];
  const source: TokenSource = {
    botToken: async () => current,
    refused: async (_install, token, error) => {
      refused.push(`${token}:${error}`);
      return fresh;
    },
  };
  return { source, refused };
}

const call = (fetch: ReturnType<typeof withInstallToken>) =>
  fetch("https://slack.test/api/chat.postMessage", { method: "POST", body: "channel=C1" });

describe("withInstallToken", () => {
  it("sends each call with the install's token as it is now", async () => {
    const s = slack(new Set(["xoxb-a"]));
    const t = tokens("xoxb-a", undefined);
    const answer = await call(withInstallToken(s.fetch, t.source, () => "TT1"));
    expect(await answer.json()).toEqual({ ok: true });
    expect(s.seen).toEqual(["xoxb-a"]);
    expect(t.refused).toEqual([]);
  });

  it("sends a call Slack refused for its token once more, with the fresh token", async () => {
    const s = slack(new Set(["xoxb-new"]));
    const t = tokens("xoxb-old", "xoxb-new");
    const answer = await call(withInstallToken(s.fetch, t.source, () => "TT1"));
    expect(await answer.json()).toEqual({ ok: true });
    expect(s.seen).toEqual(["xoxb-old", "xoxb-new"]);
    expect(t.refused).toEqual(["xoxb-old:token_expired"]);
  });

  it("gives Slack's refusal back when no fresh token comes, and tries only once more", async () => {
    const none = slack(new Set(), "token_revoked");
    const gone = tokens("xoxb-old", undefined);
    const answer = await call(withInstallToken(none.fetch, gone.source, () => "TT1"));
    expect(await answer.json()).toEqual({ ok: false, error: "token_revoked" });
    expect(none.seen).toEqual(["xoxb-old"]);
    const still = slack(new Set(), "invalid_auth");
    const again = tokens("xoxb-old", "xoxb-also-bad");
    await call(withInstallToken(still.fetch, again.source, () => "TT1"));
    expect(still.seen).toEqual(["xoxb-old", "xoxb-also-bad"]);
  });

  it("does not renew the token for another error", async () => {
    const s = slack(new Set(), "channel_not_found");
    const t = tokens("xoxb-a", "xoxb-b");
    await call(withInstallToken(s.fetch, t.source, () => "TT1"));
    expect(s.seen).toEqual(["xoxb-a"]);
    expect(t.refused).toEqual([]);
  });
});

describe("tenants", () => {
  it("are the team id in the single-token mode, and the install's and team's otherwise", () => {
    expect(tenantOf(SINGLE_INSTALL, "T1")).toBe("T1");
    expect(tenantOf("TT1", "T1")).toBe("TT1/T1");
    expect(tenantOf("EE1", "T2")).toBe("EE1/T2");
    expect(isTenantOf("EE1", "EE1/T2")).toBe(true);
    expect(isTenantOf("TT1", "TT10/T10")).toBe(false);
    expect(isTenantOf("TT1", "TT2/T1")).toBe(false);
    expect(isTenantOf(SINGLE_INSTALL, "T1")).toBe(true);
  });
});

const ORG = installKeyOf({ enterpriseId: "E0ORG", isEnterpriseInstall: true });
const WORKSPACE = installKeyOf({ teamId: "T0ALPHA" });

/** Real WebClients over a Slack that records each call's token and form. */
function recordingClients() {
  const calls: { token: string; form: URLSearchParams }[] = [];
  const fetch = async (_input: string | URL | Request, init: RequestInit = {}) => {
    const token = new Headers(init.headers).get("authorization")?.replace("Bearer ", "") ?? "";
    calls.push({ token, form: new URLSearchParams(String(init.body)) });
    return new Response(JSON.stringify({ ok: true }), {
      headers: { "content-type": "application/json" },
    });
  };
  const made: { urgent: boolean; teamId: string | undefined }[] = [];
  const makeClient: MakeInstallClient = (urgent, wrap, teamId) => {
    made.push({ urgent, teamId });
    return new WebClient(undefined, {
      slackApiUrl: "https://slack.test/api/",
      retryConfig: { retries: 0 },
      fetch: wrap(fetch),
      ...(teamId === undefined ? {} : { teamId }),
    });
  };
  const source: TokenSource = {
    botToken: async (install) => `xoxb-${install}`,
    refused: async () => undefined,
  };
  return { cache: new InstallClientCache({ tokens: source, makeClient }), calls, made };
}

describe("InstallClientCache", () => {
  it("gives an org-wide install clients per workspace, each naming its workspace on every call", async () => {
    const r = recordingClients();
    const one = r.cache.clientsFor(ORG, "T0ONE");
    const two = r.cache.clientsFor(ORG, "T0TWO");
    expect(one).not.toBe(two);
    expect(r.cache.clientsFor(ORG, "T0ONE")).toBe(one);
    await one.client.users.info({ user: "U1" });
    await two.urgentClient.files.delete({ file: "F1" });
    // A call's own team_id stands (a listener's, or a method that names another).
    await one.client.apiCall("users.info", { user: "U2", team_id: "T0TWO" });
    expect(r.calls.map((c) => [c.token, c.form.get("team_id")])).toEqual([
      [`xoxb-${ORG}`, "T0ONE"],
      [`xoxb-${ORG}`, "T0TWO"],
      [`xoxb-${ORG}`, "T0TWO"],
    ]);
    expect(r.made).toEqual([
      { urgent: false, teamId: "T0ONE" },
      { urgent: true, teamId: "T0ONE" },
      { urgent: false, teamId: "T0TWO" },
      { urgent: true, teamId: "T0TWO" },
    ]);
  });

  it("gives a workspace install, and the single-token mode, one pair of clients that name no workspace", async () => {
    const r = recordingClients();
    const alpha = r.cache.clientsFor(WORKSPACE, "T0ALPHA");
    // A Slack Connect channel's job may name another team: the install's token is the same.
    expect(r.cache.clientsFor(WORKSPACE, "T0OTHER")).toBe(alpha);
    const single = r.cache.clientsFor(SINGLE_INSTALL, "T0FAKE");
    await alpha.client.users.info({ user: "U1" });
    await single.client.users.info({ user: "U1" });
    expect(r.calls.map((c) => [c.token, c.form.has("team_id")])).toEqual([
      [`xoxb-${WORKSPACE}`, false],
      [`xoxb-${SINGLE_INSTALL}`, false],
    ]);
    expect(r.made.map((m) => m.teamId)).toEqual([undefined, undefined, undefined, undefined]);
  });
});

describe("SlackGateway with installs", () => {
  const jobOf = (install: string | undefined, teamId: string): Job => ({
    id: `job-${install}-${teamId}`,
    stage: "queued",
    createdAt: 0,
    updatedAt: 0,
    stageStartedAt: 0,
    attempts: 0,
    origin: origin({ teamId, ...(install === undefined ? {} : { install }) }),
    options: {},
    source: source(),
  });

  it("sends each job's calls with the clients of its install, and of its workspace when org-wide", async () => {
    const served: string[] = [];
    const gateways = new SlackGateway({
      clientsOf: (install, teamId) => {
        const name = `${install}:${teamId}`;
        const client = {
          files: {
            delete: async ({ file }: { file: string }) => {
              served.push(`${name} ${file}`);
            },
          },
        } as unknown as WebClient;
        return { client, botToken: `xoxb-${install}` };
      },
      slackHosts: slackHostsOf("https://slack.com/api/"),
      logger: pino({ level: "silent" }),
    });
    const jobs = [
      jobOf(ORG, "T0ONE"),
      jobOf(ORG, "T0TWO"),
      jobOf(ORG, "T0ONE"),
      jobOf(WORKSPACE, "T0ALPHA"),
      jobOf(WORKSPACE, "T0ALPHA"),
      jobOf(undefined, "T0FAKE"),
    ];
    for (const job of jobs) await gateways.deleteFile(job, job.id);
    expect(served).toEqual([
      `${ORG}:T0ONE job-${ORG}-T0ONE`,
      `${ORG}:T0TWO job-${ORG}-T0TWO`,
      `${ORG}:T0ONE job-${ORG}-T0ONE`,
      `${WORKSPACE}:T0ALPHA job-${WORKSPACE}-T0ALPHA`,
      `${WORKSPACE}:T0ALPHA job-${WORKSPACE}-T0ALPHA`,
      `${SINGLE_INSTALL}:T0FAKE job-undefined-T0FAKE`,
    ]);
  });
});
