import { randomBytes } from "node:crypto";
import { statSync } from "node:fs";
import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import type { CanvasPolicy } from "./canvas-methods.ts";
import { EventDelivery } from "./event-delivery.ts";
import type {
  AddFileInput,
  AddMessageInput,
  FakeSlack,
  FakeSlackOptions,
  ShareWhere,
} from "./fake-slack-api.ts";
import { FakeSlackStore } from "./fake-slack-store.ts";
import type { FakeMessage, SlackFileObject } from "./fake-slack-types.ts";
import { serveFile, serveGranted, servePreview } from "./file-download.ts";
import { addShare, buildCanvasObject, buildFileObject, buildSnippetObject } from "./file-object.ts";
import { type ApiAuth, type FakeSlackKnobs, handleApiRequest } from "./handle-api-request.ts";
import { shareEvents } from "./slack-events.ts";
import { createFakeSocketMode } from "./socket-mode-server.ts";
import { receiveUpload } from "./upload-receiver.ts";

export type { DeliveryTarget, FakeDelivery } from "./event-delivery.ts";
export type {
  AddFileInput,
  AddMessageInput,
  FakeSlack,
  FakeSlackOptions,
  ShareWhere,
} from "./fake-slack-api.ts";
export type { FakeSlackKnobs } from "./handle-api-request.ts";

/** Starts a fake Slack on 127.0.0.1 (a free port) for end-to-end tests. */
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
  slackOrigin = origin;
  cdnOrigin = `http://127.0.0.1:${await listen(cdn)}`;

  const s = new FakeSlackStore({
    teamId: options.teamId ?? "T0FAKE",
    botUserId: options.botUserId ?? "U0FAKEBOT",
    botId: "B0FAKEBOT",
    appId: "A0FAKEAPP",
    origin,
  });
  store = s;
  const { teamId, botUserId, botId, appId } = s.workspace;
  s.addUser({ id: botUserId, name: "meeting-notes", real_name: "Meeting Notes", is_bot: true });
  const delivery = new EventDelivery({ teamId, botUserId, appId });
  delivery.setTarget(options.deliverEventsTo);
  s.onEvent = (event) => delivery.send(event);

  const shareFile: FakeSlack["shareFile"] = (file, where) =>
    addMessage({
      channel: where.channel,
      user: where.user ?? file.user,
      files: [file],
      ...(where.text !== undefined ? { text: where.text } : {}),
      ...(where.thread_ts !== undefined ? { thread_ts: where.thread_ts } : {}),
    });

  const addMessage = (input: AddMessageInput): FakeMessage => {
    const channel = s.channel(input.channel);
    if (channel === undefined) throw new Error(`fake Slack: bad channel id ${input.channel}`);
    const message = s.addMessage({
      type: "message",
      channel: channel.id,
      ts: input.ts ?? s.nextTs(),
      text: input.text ?? "",
      user: input.user,
      ...(input.thread_ts !== undefined ? { thread_ts: input.thread_ts } : {}),
      ...(input.blocks !== undefined ? { blocks: input.blocks } : {}),
      ...(input.files !== undefined
        ? { subtype: "file_share", upload: true, files: input.files }
        : {}),
    });
    for (const file of input.files ?? []) addShare(s, file, channel, message);
    return message;
  };

  const addFile = (input: AddFileInput): SlackFileObject => {
    if ((input.path === undefined) === (input.bytes === undefined)) {
      throw new Error("fake Slack: addFile needs exactly one of path and bytes");
    }
    const bytes = typeof input.bytes === "string" ? Buffer.from(input.bytes) : input.bytes;
    const source =
      input.path !== undefined ? { path: input.path } : { bytes: bytes ?? Buffer.alloc(0) };
    const realSize = "path" in source ? statSync(source.path).size : source.bytes.length;
    const file = buildFileObject(s, {
      id: input.id ?? s.newId("F"),
      name: input.name,
      size: input.size ?? realSize,
      user: input.user ?? "U0FAKEUSER",
      ...(input.title !== undefined ? { title: input.title } : {}),
      ...(input.filetype !== undefined ? { filetype: input.filetype } : {}),
      ...(input.mimetype !== undefined ? { mimetype: input.mimetype } : {}),
    });
    s.addFile(file, source, true);
    if (input.channel !== undefined) shareFile(file, { channel: input.channel });
    return file;
  };

  const deliverShare = (message: FakeMessage): void => {
    const parent = s.parentUser(message.channel, message.thread_ts);
    const files = structuredClone(message.files ?? []);
    for (const event of shareEvents(s.workspace, message, files, parent)) delivery.send(event);
  };
  const shareMade = (file: SlackFileObject, bytes: Buffer, where: ShareWhere) => {
    s.addFile(file, { bytes }, true);
    const message = addMessage({
      channel: where.channel,
      user: file.user,
      files: [file],
      ...(where.text !== undefined ? { text: where.text } : {}),
      ...(where.thread_ts !== undefined ? { thread_ts: where.thread_ts } : {}),
    });
    deliverShare(message);
    return { file, message };
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
    socket,
    calls: s.calls,
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
    addFile,
    shareFile,
    addMessage,
    addFileObject: (file, content = {}) => {
      if (typeof file.id !== "string") throw new Error("fake Slack: a file object needs an id");
      const object = file as unknown as SlackFileObject;
      const bytes = content.bytes === undefined ? undefined : { bytes: content.bytes };
      const preview = content.preview === undefined ? undefined : { bytes: content.preview };
      s.addFile(object, bytes, true, preview);
      return object;
    },
    deliverEvents: (target) => delivery.setTarget(target),
    deliveries: delivery.delivered,
    deliveriesSettled: () => delivery.settled(),
    get deliveriesPending() {
      return delivery.pending;
    },
    deliverShare,
    shareCanvas: (where) => {
      const user = where.user ?? "U0FAKEUSER";
      const title = where.title ?? "Meeting agenda";
      const bytes = Buffer.from(`<h1>${title}</h1>`);
      const file = buildCanvasObject(s, { id: s.newId("F"), title, user, size: bytes.length });
      return shareMade(file, bytes, where);
    },
    shareSnippet: (where) => {
      const user = where.user ?? "U0FAKEUSER";
      const file = buildSnippetObject(s, {
        id: s.newId("F"),
        content: where.content,
        user,
        ...(where.filetype !== undefined ? { filetype: where.filetype } : {}),
      });
      return shareMade(file, Buffer.from(where.content), where);
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
      for (const key of Object.keys(knobs)) delete knobs[key as keyof FakeSlackKnobs];
    },
    close: async () => {
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
