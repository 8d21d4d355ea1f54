import { readFileSync } from "node:fs";
import { App, type AuthorizeResult, LogLevel } from "@slack/bolt";
import { describe, expect, it } from "vitest";
import { type Job, SINGLE_INSTALL, tenantOf } from "../../../src/jobs/index.ts";
import { installKeyOf } from "../../../src/slack/installs/install-key.ts";
import {
  envelopeTeamIds,
  NoWorkspaceError,
  type RequestTenant,
  requestInstall,
  requestOrigin,
  requestOwns,
  requestTenant,
  requestWorkspace,
  runAsInstall,
  scopeRequests,
} from "../../../src/slack/installs/request-tenant.ts";
import {
  blockActionPayload,
  commandFields,
  sharedChannelEventCallback,
  viewSubmissionPayload,
} from "../../../support/fake-slack/slack-payloads.ts";

/** test/fixtures/slack/: Slack's documented Slack Connect payloads, by name. */
function fixture(file: string): Record<string, Record<string, unknown>> {
  const url = new URL(`../../fixtures/slack/${file}.json`, import.meta.url);
  return JSON.parse(readFileSync(url, "utf8"));
}
const connect = fixture("slack-connect");
const sharedEvent = fixture("app_uninstalled-slack-connect").sharedChannelEvent as Record<
  string,
  unknown
>;
const partnerClick = connect.blockActionsFromPartner?.payload as {
  user: { id: string; team_id: string };
  team: { id: string };
};

/**
 * The tenant the listeners of `body` see, through Bolt itself (its `processEvent`, the
 * context it builds from the payload) and the app's middleware: `installs` false is the
 * single-token mode, true installs by OAuth (an `authorize` that names no workspace, so the
 * context's is the one Bolt read from the payload).
 */
async function tenantSeen(body: Record<string, unknown>, installs: boolean) {
  const auth: AuthorizeResult = { botToken: "xoxb-test", botId: "B0BOT", botUserId: "U0BOT" };
  const app = new App({
    signingSecret: "unused",
    logLevel: LogLevel.ERROR,
    ...(installs
      ? { authorize: async () => auth }
      : {
          token: "xoxb-test",
          botId: "B0BOT",
          botUserId: "U0BOT",
          tokenVerificationEnabled: false,
        }),
  });
  app.use(scopeRequests(installs));
  let seen: RequestTenant | undefined;
  const record = async () => {
    seen = { install: requestInstall(), teamId: requestWorkspace() };
  };
  app.event(/.*/, record);
  app.action(/.*/, async ({ ack }) => {
    await ack();
    await record();
  });
  app.view(/.*/, async ({ ack }) => {
    await ack();
    await record();
  });
  app.command(/.*/, async ({ ack }) => {
    await ack();
    await record();
  });
  await app.processEvent({ body, ack: async () => {} });
  return seen;
}

describe("the request's tenant, as Bolt's context has it from Slack's documented fields", () => {
  const cases: [string, Record<string, unknown>, string][] = [
    [
      "an event in a Slack Connect channel: the install (authorizations), not the host (team_id)",
      sharedEvent,
      "T_INSTALLED",
    ],
    [
      "a Connect partner's click: the install's team, not the clicker's own (user.team_id)",
      blockActionPayload({
        actionId: "job_cancel",
        value: "job-1",
        user: partnerClick.user.id,
        channel: "C111",
        messageTs: "1599529504.000400",
        teamId: partnerClick.team.id,
        userTeamId: partnerClick.user.team_id,
      }),
      partnerClick.team.id,
    ],
    [
      "a Connect partner's modal: view.app_installed_team_id, not the submitter's team",
      viewSubmissionPayload({
        callbackId: "channel_settings",
        privateMetadata: "{}",
        values: {},
        user: "U0PARTNER",
        teamId: "T0INSTALL",
        submitterTeamId: "T0PARTNER",
      }),
      "T0INSTALL",
    ],
    [
      "a slash command: its team_id",
      commandFields({ user_id: "U0ALICE", channel_id: "C111", team_id: "T0INSTALL" }),
      "T0INSTALL",
    ],
  ];

  it.each(cases)("%s (single token)", async (_name, body, team) => {
    expect(await tenantSeen(body, false)).toEqual({ install: SINGLE_INSTALL, teamId: team });
  });

  it.each(cases)("%s (installs by OAuth)", async (_name, body, team) => {
    expect(await tenantSeen(body, true)).toEqual({
      install: installKeyOf({ teamId: team }),
      teamId: team,
    });
  });

  it("builds the Connect payloads of the fake Slack where Slack's published ones put each team", () => {
    const click = blockActionPayload({
      actionId: "a",
      value: "v",
      user: partnerClick.user.id,
      channel: "C1",
      messageTs: "1.2",
      teamId: partnerClick.team.id,
      userTeamId: partnerClick.user.team_id,
    });
    expect(click).toMatchObject({
      team: { id: partnerClick.team.id },
      user: { id: partnerClick.user.id, team_id: partnerClick.user.team_id },
    });
    const built = sharedChannelEventCallback(
      { type: "reaction_added" },
      {
        hostTeamId: "T_SOURCE",
        hostEnterpriseId: "E_SOURCE",
        installTeamId: "T_INSTALLED",
        installEnterpriseId: "E_INSTALLED",
        eventId: "Ev111",
      },
    );
    expect(built).toMatchObject({
      team_id: sharedEvent.team_id,
      enterprise_id: sharedEvent.enterprise_id,
      authorizations: [{ team_id: "T_INSTALLED", enterprise_id: "E_INSTALLED" }],
      is_ext_shared_channel: true,
    });
  });
});

describe("requestTenant and requestOrigin", () => {
  it("key a request's data by its install and workspace", () => {
    const install = installKeyOf({ teamId: "T0ONE" });
    runAsInstall(
      install,
      () => {
        expect(requestTenant()).toBe(tenantOf(install, "T0ONE"));
        expect(requestOrigin()).toEqual({ install, teamId: "T0ONE" });
      },
      "T0ONE",
    );
    runAsInstall(
      SINGLE_INSTALL,
      () => expect(requestOrigin()).toEqual({ teamId: "T0ONE" }),
      "T0ONE",
    );
  });

  it("refuse a request that names no workspace, inside a request or outside any", () => {
    expect(() => requestTenant()).toThrow(NoWorkspaceError);
    expect(() => runAsInstall(SINGLE_INSTALL, () => requestOrigin())).toThrow(NoWorkspaceError);
  });
});

describe("requestOwns", () => {
  const jobOf = (origin: Job["origin"]) => ({ origin }) as Job;
  const install = installKeyOf({ teamId: "T0ONE" });
  const ours = jobOf({ install, teamId: "T0ONE", channelId: "C1", threadTs: "1.2", userId: "U1" });

  it("fails closed: a request that names no workspace owns no job, in either mode", () => {
    const single = jobOf({ teamId: "T0ONE", channelId: "C1", threadTs: "1.2", userId: "U1" });
    expect(runAsInstall(install, () => requestOwns(ours))).toBe(false);
    expect(runAsInstall(SINGLE_INSTALL, () => requestOwns(single))).toBe(false);
    expect(requestOwns(single)).toBe(false);
  });

  it("owns a job of its own tenant only", () => {
    expect(runAsInstall(install, () => requestOwns(ours), "T0ONE")).toBe(true);
    expect(runAsInstall(install, () => requestOwns(ours), "T0TWO")).toBe(false);
    const other = installKeyOf({ teamId: "T0TWO" });
    expect(runAsInstall(other, () => requestOwns(ours), "T0ONE")).toBe(false);
    expect(runAsInstall(SINGLE_INSTALL, () => requestOwns(ours), "T0ONE")).toBe(false);
  });
});

describe("envelopeTeamIds", () => {
  it("names the host and the install of a Connect event, once each", () => {
    expect(envelopeTeamIds(sharedEvent)).toEqual([
      "T_SOURCE",
      "E_SOURCE",
      "T_INSTALLED",
      "E_INSTALLED",
    ]);
    expect(envelopeTeamIds({ event: { type: "app_uninstalled" } })).toBeUndefined();
  });
});
