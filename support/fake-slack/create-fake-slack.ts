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
import { EventDelivery } from "./event-delivery.ts";
import type { FakeSlack, FakeSlackOptions } from "./fake-slack-api.ts";
import { FakeSlackStore } from "./fake-slack-store.ts";
import { serveFile, serveGranted, servePreview } from "./file-download.ts";
import { type ApiAuth, type FakeSlackKnobs, handleApiRequest } from "./handle-api-request.ts";
import { peopleHelpers } from "./people-helpers.ts";
import { createFakeSocketMode } from "./socket-mode-server.ts";
import { strictRules } from "./strict-rules.ts";
import { receiveUpload } from "./upload-receiver.ts";
import { watchDeliveries } from "./violations.ts";

export type { DeliveryTarget, FakeDelivery } from "./event-delivery.ts";
export type {
  AddFileInput,
  AddMessageInput,
  FakeSlack,
  FakeSlackOptions,
  ShareWhere,
} from "./fake-slack-api.ts";
export type { FakeSlackKnobs } from "./handle-api-request.ts";
export type { StrictOption, StrictRules } from "./strict-rules.ts";
export type { FakeViolation } from "./violations.ts";

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
  let store: FakeSlackStore | undefined;
  let cdnOrigin = "";
  let slackOrigin = "";
  const socket =
    options.socketMode === undefined || options.socketMode === false
      ? undefined
      : await createFakeSocketMode(options.socketMode === true ? {} : options.socketMode);
  const auth: ApiAuth = {
    botToken,
    appToken: socket?.appToken,
    appMethods:
      socket === undefined ? {} : { "apps.connections.open": () => ({ url: socket.openUrl() }) },
  };

  const guard =
    (
      route: (req: IncomingMessage, res: ServerResponse, s: FakeSlackStore) => Promise<void>,
    ): RequestListener =>
    (req, res) => {
      if (store === undefined) {
        res.writeHead(503).end();
        return;
      }
      route(req, res, store).catch((error: unknown) => {
        process.stderr.write(`fake Slack: ${req.method} ${req.url} failed: ${String(error)}\n`);
        if (!res.headersSent) res.writeHead(500).end();
        else res.destroy();
      });
    };
  const main = createServer(
    guard(async (req, res, s) => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      const method = /^\/api\/([A-Za-z0-9_.]+)$/.exec(path)?.[1];
      if (method !== undefined) return handleApiRequest(req, res, method, s, auth, knobs);
      if (path.startsWith("/upload/v1/")) {
        return receiveUpload(req, res, s, keepUploadBytes, knobs.failUploads);
      }
      if (path.startsWith("/files-tmb/")) return servePreview(req, res, s, botToken, knobs);
      if (path.startsWith("/files-pri/")) {
        return serveFile(req, res, s, botToken, { slackOrigin, cdnOrigin, grants }, knobs);
      }
      if (path.startsWith("/files-origin/")) {
        return serveGranted(req, res, s, grants, knobs, "slack", botToken);
      }
      if (path.startsWith("/response/") && req.method === "POST")
        return recordResponse(req, res, s);
      req.resume();
      res.writeHead(404, { "content-type": "text/plain" }).end("Not Found");
    }),
  );
  const cdn = createServer(guard((req, res, s) => serveGranted(req, res, s, grants, knobs, "cdn")));
  const origin = `http://127.0.0.1:${await listen(main)}`;
  // What the app is given: its URLs lead through whatever stands in front of the fake.
  const publicOrigin = options.publicOrigin ?? origin;
  slackOrigin = publicOrigin;
  cdnOrigin = `http://127.0.0.1:${await listen(cdn)}`;

  const s = new FakeSlackStore(
    {
      teamId: options.teamId ?? "T0FAKE",
      botUserId: options.botUserId ?? "U0FAKEBOT",
      botId: "B0FAKEBOT",
      appId: "A0FAKEAPP",
      origin: publicOrigin,
    },
    {
      strict: strictRules(options.strict),
      installed: installedApp(options.manifest ?? HTTP_MANIFEST),
      now: () => knobs.now?.() ?? Date.now(),
    },
  );
  store = s;
  const { teamId, botUserId, botId, appId } = s.workspace;
  s.addUser({ id: botUserId, name: "meeting-notes", real_name: "Meeting Notes", is_bot: true });
  const delivery = new EventDelivery({ teamId, botUserId, appId });
  delivery.setTarget(options.deliverEventsTo);
  s.onEvent = (event) => delivery.send(event);

  const people = peopleHelpers(s, delivery);
  // What tests deliver over HTTP reaches this fake through the senders (violations.ts);
  // over the socket, through its `send`.
  const checks = deliveryChecks(s);
  const unwatch = watchDeliveries(checks);

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
    responseUrl: () => `${origin}/response/${randomBytes(8).toString("hex")}`,
    reset: () => {
      s.reset();
      delivery.delivered.length = 0;
      socket?.reset();
      grants.clear();
      // Back to the knobs it was created with (a stack's rate scale, say), nothing else.
      for (const key of Object.keys(knobs)) delete knobs[key as keyof FakeSlackKnobs];
      Object.assign(knobs, options.knobs);
    },
    close: async () => {
      unwatch();
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
