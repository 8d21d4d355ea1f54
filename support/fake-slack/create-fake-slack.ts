import { randomBytes } from "node:crypto";
import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { HTTP_MANIFEST, installedApp } from "./app-manifest.ts";
import type { CanvasPolicy } from "./canvas-methods.ts";
import { deliveryChecks, watchedSocket } from "./delivery-checks.ts";
import { type DeliveryWorkspace, EventDelivery } from "./event-delivery.ts";
import type { FakeSlack, FakeSlackOptions, FakeTeam, UninstallTarget } from "./fake-slack-api.ts";
import { FakeSlackStore } from "./fake-slack-store.ts";
import type { ConnectHost } from "./fake-slack-types.ts";
import { type DownloadAccess, serveFile, serveGranted, servePreview } from "./file-download.ts";
import { HandedOut } from "./handed-out.ts";
import { type ApiAuth, type FakeSlackKnobs, handleApiRequest } from "./handle-api-request.ts";
import { DEFAULT_EXPIRES_IN, type FakeInstallation, Tenancy } from "./installations.ts";
import { FakeOAuth } from "./oauth.ts";
import { peopleHelpers } from "./people-helpers.ts";
import { eventCallback } from "./slack-payloads.ts";
import { createFakeSocketMode } from "./socket-mode-server.ts";
import { strictRules } from "./strict-rules.ts";
import { receiveUpload } from "./upload-receiver.ts";
import { watchDeliveries } from "./violations.ts";
import { WorkflowSteps } from "./workflow-steps.ts";

export type { DeliveryTarget, FakeDelivery } from "./event-delivery.ts";
export type {
  AddFileInput,
  AddMessageInput,
  FakeSlack,
  FakeSlackOptions,
  FakeTeam,
  FakeTeamOption,
  ShareWhere,
  UninstallTarget,
} from "./fake-slack-api.ts";
export type { FakeSlackKnobs } from "./handle-api-request.ts";
export type { FakeEnterprise, FakeInstallation } from "./installations.ts";
export { type AuthorizeInstallInput, FakeOAuthRefusal } from "./oauth.ts";
export type { StrictOption, StrictRules } from "./strict-rules.ts";
export type { FakeViolation } from "./violations.ts";
export type { FakeStepExecution, RunWorkflowStepInput, StepOutcome } from "./workflow-steps.ts";

/**
 * Starts a fake Slack on 127.0.0.1 (a free port) for end-to-end tests. It is strict unless
 * told otherwise (`strict`): it holds the app to the scopes of the installed manifest
 * (`manifest`, default manifests/manifest.http.json), to trigger expiry, rate tiers, Block
 * Kit limits, canvas access rules and the App Home's Messages tab (strict-rules.ts).
 */
export async function createFakeSlack(options: FakeSlackOptions = {}): Promise<FakeSlack> {
  const botToken = options.botToken ?? `xoxb-fake-${randomBytes(12).toString("hex")}`;
  const keepUploadBytes = options.keepUploadBytes ?? 1024 * 1024;
  const knobs: FakeSlackKnobs = { ...options.knobs };
  const grants = new Map<string, string>();
  let home: FakeSlackStore | undefined;
  let cdnOrigin = "";
  let slackOrigin = "";
  const now = () => knobs.now?.() ?? Date.now();
  const handedOut = new HandedOut();
  const tenancy = new Tenancy(now, handedOut);
  const socket =
    options.socketMode === undefined || options.socketMode === false
      ? undefined
      : await createFakeSocketMode(options.socketMode === true ? {} : options.socketMode);
  handedOut.add("app_token", socket?.appToken);

  /** Who may read a workspace's files: a live token of an installation acting there. */
  const access: DownloadAccess = (authorization, teamId) => {
    const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? "")?.[1];
    const who = tenancy.authenticate(token);
    if (who === "token_expired") return "expired";
    if (typeof who === "string") return "denied";
    return tenancy.teamsOf(who.installation).some((t) => t.workspace.teamId === teamId)
      ? "ok"
      : "denied";
  };
  const teamOfPath = (path: string): FakeSlackStore | undefined => {
    const team = /^\/files-(?:pri|tmb)\/([^/-]+)-/.exec(path)?.[1];
    return team === undefined ? undefined : tenancy.teams.get(team);
  };
  const storeOfFile = (fileId: string | undefined): FakeSlackStore | undefined =>
    fileId === undefined ? undefined : [...tenancy.teams.values()].find((t) => t.files.has(fileId));

  let auth: ApiAuth | undefined;
  const guard =
    (
      route: (req: IncomingMessage, res: ServerResponse, s: FakeSlackStore) => Promise<void>,
    ): RequestListener =>
    (req, res) => {
      if (home === undefined) {
        res.writeHead(503).end();
        return;
      }
      route(req, res, home).catch((error: unknown) => {
        process.stderr.write(`fake Slack: ${req.method} ${req.url} failed: ${String(error)}\n`);
        if (!res.headersSent) res.writeHead(500).end();
        else res.destroy();
      });
    };
  const notFound = (res: ServerResponse) =>
    res.writeHead(404, { "content-type": "text/plain" }).end("Not Found");
  const main = createServer(
    guard(async (req, res, s) => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      const method = /^\/api\/([A-Za-z0-9_.]+)$/.exec(path)?.[1];
      if (method !== undefined && auth !== undefined) {
        return handleApiRequest(req, res, method, s, auth, knobs);
      }
      if (path.startsWith("/upload/v1/")) {
        const owner = [...tenancy.teams.values()].find((t) => t.uploadPaths.has(path)) ?? s;
        return receiveUpload(req, res, owner, keepUploadBytes, knobs.failUploads);
      }
      if (path.startsWith("/files-tmb/")) {
        return servePreview(req, res, teamOfPath(path) ?? s, access, knobs);
      }
      if (path.startsWith("/files-pri/")) {
        const owner = teamOfPath(path) ?? s;
        return serveFile(req, res, owner, access, { slackOrigin, cdnOrigin, grants }, knobs);
      }
      if (path.startsWith("/files-origin/")) {
        const grant = /^\/files-origin\/([a-f0-9]+)\//.exec(path)?.[1] ?? "";
        const owner = storeOfFile(grants.get(grant)) ?? s;
        return serveGranted(req, res, owner, grants, knobs, "slack", access);
      }
      if (path.startsWith("/response/") && req.method === "POST")
        return recordResponse(req, res, s);
      req.resume();
      notFound(res);
    }),
  );
  const cdn = createServer(
    guard((req, res, s) => {
      const grant = /^\/cdn\/([a-f0-9]+)\//.exec(new URL(req.url ?? "/", "http://x").pathname)?.[1];
      const owner = storeOfFile(grants.get(grant ?? "")) ?? s;
      return serveGranted(req, res, owner, grants, knobs, "cdn");
    }),
  );
  const origin = `http://127.0.0.1:${await listen(main)}`;
  // What the app is given: its URLs lead through whatever stands in front of the fake.
  const publicOrigin = options.publicOrigin ?? origin;
  slackOrigin = publicOrigin;
  cdnOrigin = `http://127.0.0.1:${await listen(cdn)}`;

  const installed = installedApp(options.manifest ?? HTTP_MANIFEST);
  const rules = {
    strict: strictRules(options.strict),
    installed,
    now,
    distributedApp: options.distributedApp ?? false,
  };
  const appId = "A0FAKEAPP";
  const s = new FakeSlackStore(
    {
      teamId: options.teamId ?? "T0FAKE",
      botUserId: options.botUserId ?? "U0FAKEBOT",
      botId: "B0FAKEBOT",
      appId,
      origin: publicOrigin,
    },
    rules,
  );
  tenancy.addTeam(s);
  tenancy.enterprise =
    options.enterprise === undefined
      ? undefined
      : { id: options.enterprise.id, name: options.enterprise.name };
  const orgBotUserId = options.enterprise?.botUserId ?? "W0FAKEBOT";
  for (const team of options.teams ?? []) {
    if (team.enterprise === true && options.enterprise === undefined) {
      throw new Error(`fake Slack: workspace ${team.id} is in an enterprise, but none was given`);
    }
    const store = new FakeSlackStore(
      {
        teamId: team.id,
        teamName: team.name ?? `Workspace ${team.id}`,
        domain: team.domain ?? team.id.toLowerCase(),
        botUserId: team.botUserId ?? (team.enterprise === true ? orgBotUserId : `U0BOT${team.id}`),
        botId: `B0BOT${team.id}`,
        appId,
        origin: publicOrigin,
        ...(team.enterprise === true && options.enterprise !== undefined
          ? { enterpriseId: options.enterprise.id }
          : {}),
      },
      rules,
      s.logs,
    );
    tenancy.addTeam(store);
  }
  home = s;
  const { teamId, botUserId, botId } = s.workspace;
  s.addUser({ id: botUserId, name: "meeting-notes", real_name: "Meeting Notes", is_bot: true });

  /** A workspace install with a static bot token (the default one, and `installed` teams). */
  const installStatic = (store: FakeSlackStore, token: string): FakeInstallation => {
    const w = store.workspace;
    const installation = tenancy.install({
      id: `I0${w.teamId}`,
      teamId: w.teamId,
      enterpriseId: w.enterpriseId ?? null,
      isEnterpriseInstall: false,
      botUserId: w.botUserId,
      botId: w.botId,
      botScopes: installed.botScopes,
      userScopes: [],
      installerUserId: "U0FAKEUSER",
      botToken: token,
      refreshes: 0,
      uninstalled: false,
    });
    tenancy.issue(installation, "bot", undefined, token);
    if (!store.users.has(w.botUserId)) {
      store.addUser({
        id: w.botUserId,
        name: "meeting-notes",
        real_name: "Meeting Notes",
        is_bot: true,
      });
    }
    return installation;
  };
  installStatic(s, botToken);
  for (const team of options.teams ?? []) {
    if (team.installed === true) {
      installStatic(tenancy.team(team.id), `xoxb-fake-${randomBytes(12).toString("hex")}`);
    }
  }

  const delivery = new EventDelivery({ teamId, botUserId, appId });
  delivery.setTarget(options.deliverEventsTo);
  /**
   * The envelope identity of a workspace's events: the install that receives them, and for
   * an event in a Slack Connect channel, the workspace hosting it (`event`'s channel).
   */
  const identityOf = (
    store: FakeSlackStore,
    installation: FakeInstallation,
    event?: Record<string, unknown>,
  ): DeliveryWorkspace => {
    const host = event === undefined ? undefined : connectHostOf(store, event);
    return {
      teamId: store.workspace.teamId,
      botUserId: installation.botUserId,
      appId,
      enterpriseId: store.workspace.enterpriseId,
      isEnterpriseInstall: installation.isEnterpriseInstall,
      ...(host === undefined ? {} : { host }),
    };
  };
  /** Sends a workspace's event to the installation acting there; none: Slack sends nothing. */
  const sendFor = (store: FakeSlackStore, event: Record<string, unknown>): void => {
    const installation = tenancy.installationFor(store.workspace.teamId);
    if (installation !== undefined) delivery.send(event, identityOf(store, installation, event));
  };
  /** HTTP when delivery is on, else the socket when there is one. */
  const emit = async (identity: DeliveryWorkspace, event: Record<string, unknown>) => {
    if (delivery.enabled || socket === undefined) {
      delivery.send(event, identity);
      return;
    }
    const eventId = `Ev0${randomBytes(5).toString("hex").toUpperCase()}`;
    await socket.send(
      "events_api",
      eventCallback(event, { ...identity, apiAppId: appId, eventId }),
    );
  };

  /** A Socket Mode URL, its ticket among what was handed out (it opens a connection). */
  const socketUrl = (server: NonNullable<typeof socket>): string => {
    const url = server.openUrl();
    handedOut.add("socket_url", new URL(url).searchParams.get("ticket"));
    return url;
  };

  const oauth = new FakeOAuth({
    origins: [...new Set([origin, publicOrigin])],
    client: {
      clientId: options.oauth?.clientId ?? `${Date.now()}.${randomBytes(6).readUIntBE(0, 6)}`,
      clientSecret: options.oauth?.clientSecret ?? randomBytes(16).toString("hex"),
    },
    tenancy,
    installed,
    appId,
    now,
    expiresIn: () => knobs.tokenExpiresIn ?? DEFAULT_EXPIRES_IN,
    botOf: (team) => {
      if (team === null) return { botUserId: orgBotUserId, botId: "B0FAKEORG" };
      const w = tenancy.team(team).workspace;
      return { botUserId: w.botUserId, botId: w.botId };
    },
    handedOut,
  });
  const steps = new WorkflowSteps({
    tenancy,
    now,
    installed,
    appId,
    deliver: (store, event) => {
      const installation = tenancy.installationFor(store.workspace.teamId);
      if (installation === undefined) return;
      void emit(identityOf(store, installation), event);
    },
  });
  auth = {
    tenancy,
    home: s,
    appToken: socket?.appToken,
    appMethods:
      socket === undefined ? {} : { "apps.connections.open": () => ({ url: socketUrl(socket) }) },
    clientMethods: {
      "oauth.v2.access": oauth.access,
      // Needs no token: "Checks API calling code" and echoes its arguments
      // (https://docs.slack.dev/reference/methods/api.test).
      "api.test": (args) => (Object.keys(args).length === 0 ? {} : { args }),
    },
    botMethods: steps.methods,
  };

  // What tests deliver over HTTP reaches this fake through the senders (violations.ts);
  // over the socket, through its `send`.
  const checks = deliveryChecks(s, handedOut);
  const unwatchers = [...tenancy.teams.values()].map((t) =>
    watchDeliveries(t === s ? checks : deliveryChecks(t, handedOut)),
  );
  const teamHandles = new Map<string, FakeTeam>();
  for (const store of tenancy.teams.values()) {
    const sender = { send: (event: Record<string, unknown>) => sendFor(store, event) };
    store.onEvent = sender.send;
    teamHandles.set(store.workspace.teamId, teamHandle(store, sender));
  }
  const people = peopleHelpers(s, { send: (event) => sendFor(s, event) });

  function teamHandle(
    store: FakeSlackStore,
    sender: { send: (event: Record<string, unknown>) => void },
  ): FakeTeam {
    const w = store.workspace;
    const enterprise = w.enterpriseId === undefined ? undefined : tenancy.enterprise;
    const live = () => tenancy.installationFor(w.teamId);
    const domain = w.domain ?? "fake-workspace";
    return {
      teamId: w.teamId,
      enterpriseId: w.enterpriseId,
      get botToken() {
        return live()?.botToken;
      },
      get botUserId() {
        return live()?.botUserId;
      },
      get installContext() {
        return {
          teamId: w.teamId,
          teamDomain: domain,
          ...(enterprise !== undefined ? { enterprise } : {}),
          isEnterpriseInstall: live()?.isEnterpriseInstall ?? false,
        };
      },
      get commandContext() {
        return {
          team_id: w.teamId,
          team_domain: domain,
          ...(enterprise !== undefined
            ? { enterprise_id: enterprise.id, enterprise_name: enterprise.name }
            : {}),
          is_enterprise_install: live()?.isEnterpriseInstall ?? false,
        };
      },
      envelope: (event) => {
        const installation = live();
        if (installation === undefined) throw new Error(`fake Slack: ${w.teamId} has no install`);
        const eventId = `Ev0${randomBytes(5).toString("hex").toUpperCase()}`;
        return eventCallback(event, {
          ...identityOf(store, installation, event),
          apiAppId: appId,
          eventId,
        });
      },
      addUser: (user) => store.addUser(user),
      addChannel: (channel) =>
        store.addChannel({ is_private: false, is_im: false, is_member: true, ...channel }),
      ...peopleHelpers(store, sender),
      messages: (channel) => store.messages(channel),
      thread: (channel, ts) => store.thread(channel, ts),
    };
  }

  const uninstall = async (target: UninstallTarget): Promise<FakeInstallation> => {
    const installation =
      "id" in target
        ? target
        : "team" in target
          ? tenancy.installations.findLast(
              (i) => !i.uninstalled && !i.isEnterpriseInstall && i.teamId === target.team,
            )
          : tenancy.installations.findLast((i) => !i.uninstalled && i.isEnterpriseInstall);
    if (installation === undefined || installation.uninstalled) {
      throw new Error("fake Slack: no such live installation to uninstall");
    }
    const [store] = tenancy.teamsOf(installation);
    tenancy.revokeAll(installation);
    if (store === undefined) return installation;
    // https://docs.slack.dev/reference/events/tokens_revoked then …/app_uninstalled (kept in
    // test/fixtures/slack-payloads/event-tokens_revoked.json, event-app_uninstalled.json):
    // sent to the installation that was removed, its tokens already refused.
    const identity = identityOf(store, installation);
    const users = installation.userToken === undefined ? [] : [installation.installerUserId];
    await emit(identity, {
      type: "tokens_revoked",
      tokens: { oauth: users, bot: [installation.botUserId] },
      event_ts: String(now() / 1000),
    });
    await emit(identity, { type: "app_uninstalled", event_ts: String(now() / 1000) });
    return installation;
  };

  /**
   * An org admin removes one workspace from an org-wide install: its token no longer acts
   * there and the workspace's events no longer reach it. "The team_access_revoked event is
   * sent to your organization-ready app when your token can no longer access a workspace in
   * that organization" to an app that subscribes to it ("Subscribe to this event via the
   * Events API", https://api.slack.com/events/team_access_revoked; kept in
   * test/fixtures/slack-payloads/event-team_access_revoked.json): about the organisation,
   * `team_id` null, the workspaces in `team_ids`.
   */
  const revokeTeamAccess = async (team: string): Promise<FakeInstallation> => {
    const store = tenancy.team(team);
    const installation = tenancy.installations.findLast(
      (i) =>
        !i.uninstalled &&
        i.isEnterpriseInstall &&
        i.enterpriseId === (store.workspace.enterpriseId ?? null) &&
        tenancy.teamsOf(i).includes(store),
    );
    if (installation === undefined) {
      throw new Error(`fake Slack: no org-wide installation acts in ${team}`);
    }
    installation.revokedTeams = [...(installation.revokedTeams ?? []), team];
    if (!installed.orgDeployEnabled || !installed.botEvents.includes("team_access_revoked")) {
      return installation;
    }
    const identity = { ...identityOf(store, installation), orgLevel: true };
    await emit(identity, {
      type: "team_access_revoked",
      team_ids: [team],
      event_ts: String(now() / 1000),
    });
    return installation;
  };

  return {
    apiUrl: `${origin}/api/`,
    origin,
    cdnOrigin,
    botToken,
    teamId,
    botUserId,
    botId,
    appId,
    knobs,
    team: (id) => {
      const handle = teamHandles.get(id);
      if (handle === undefined) throw new Error(`fake Slack: no workspace ${id}`);
      return handle;
    },
    enterprise: tenancy.enterprise,
    oauth: oauth.client,
    installations: tenancy.installations,
    authorizeInstall: (input) => oauth.authorizeInstall(input),
    expireToken: (token) => {
      const record = tenancy.tokens.get(token);
      if (record === undefined) throw new Error("fake Slack: no such token");
      record.expiresAt = now();
    },
    revokeRefreshToken: (token) => tenancy.revokeRefresh(token),
    uninstall,
    revokeTeamAccess,
    runWorkflowStep: (input) => steps.run(input),
    strict: s.strict,
    socket: socket === undefined ? undefined : watchedSocket(socket, checks),
    calls: s.calls,
    violations: s.violations,
    canvases: s.canvases,
    setCanvasPolicy: (policy: CanvasPolicy) => {
      s.canvasPolicy = policy;
    },
    downloads: s.downloads,
    uploads: s.uploads,
    views: s.viewRecords,
    ephemerals: s.ephemerals,
    responseUrlPosts: s.responseUrlPosts,
    addUser: (user) => s.addUser(user),
    addChannel: (channel) =>
      s.addChannel({ is_private: false, is_im: false, is_member: true, ...channel }),
    ...people,
    deliverEvents: (target) => delivery.setTarget(target),
    deliveries: delivery.delivered,
    deliveriesSettled: () => delivery.settled(),
    get deliveriesPending() {
      return delivery.pending;
    },
    messages: (channel) => s.messages(channel),
    thread: (channel, ts) => s.thread(channel, ts),
    callsTo: (method) => s.calls.filter((c) => c.method === method),
    view: (viewId) => s.views.get(viewId)?.view,
    responseUrl: () => {
      const url = `${origin}/response/${randomBytes(8).toString("hex")}`;
      handedOut.add("response_url", url);
      return url;
    },
    handedOut: () => handedOut.list(),
    reset: () => {
      for (const store of tenancy.teams.values()) store.reset();
      delivery.delivered.length = 0;
      socket?.reset();
      grants.clear();
      // Back to the knobs it was created with (a stack's rate scale, say), nothing else.
      for (const key of Object.keys(knobs)) delete knobs[key as keyof FakeSlackKnobs];
      Object.assign(knobs, options.knobs);
    },
    close: async () => {
      for (const unwatch of unwatchers) unwatch();
      delivery.setTarget(undefined);
      await delivery.settled();
      await Promise.all([stop(main), stop(cdn), socket?.close()]);
    },
  };
}

async function recordResponse(
  req: IncomingMessage,
  res: ServerResponse,
  s: FakeSlackStore,
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: keep the text as sent.
  }
  const id = new URL(req.url ?? "/", "http://x").pathname.slice("/response/".length);
  s.responseUrlPosts.push({ id, body, headers: req.headers, at: Date.now() });
  res.writeHead(200, { "content-type": "text/plain" }).end("ok");
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port));
  });
}

function stop(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** The host of the Slack Connect channel `event` happened in; undefined for any other. */
function connectHostOf(
  store: FakeSlackStore,
  event: Record<string, unknown>,
): ConnectHost | undefined {
  const id = typeof event.channel === "string" ? event.channel : event.channel_id;
  return typeof id === "string" ? store.channel(id)?.connect : undefined;
}
