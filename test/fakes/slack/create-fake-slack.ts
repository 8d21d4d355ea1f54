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
import { FakeSlackStore } from "./fake-slack-store.ts";
import type {
  FakeCall,
  FakeChannel,
  FakeDownload,
  FakeEphemeral,
  FakeMessage,
  FakeResponseUrlPost,
  FakeUpload,
  FakeUser,
  FakeViewRecord,
  SlackFileObject,
} from "./fake-slack-types.ts";
import { serveFile, serveGranted } from "./file-download.ts";
import { addShare, buildFileObject } from "./file-object.ts";
import { type ApiAuth, type FakeSlackKnobs, handleApiRequest } from "./handle-api-request.ts";
import {
  createFakeSocketMode,
  type FakeSocketMode,
  type FakeSocketModeOptions,
} from "./socket-mode-server.ts";
import { receiveUpload } from "./upload-receiver.ts";

export type { FakeSlackKnobs } from "./handle-api-request.ts";

export interface FakeSlackOptions {
  /** Default: a random `xoxb-fake-…`. */
  botToken?: string;
  /** Default `T0FAKE`. */
  teamId?: string;
  /** Default `U0FAKEBOT`. */
  botUserId?: string;
  /** Uploads up to this size keep their bytes in `uploads[].data`; default 1 MiB. */
  keepUploadBytes?: number;
  knobs?: FakeSlackKnobs;
  /**
   * Runs a Socket Mode server too (`socket`): `apps.connections.open`, called with its
   * app-level token (`socket.appToken`), answers a fresh `ws://` URL of it.
   */
  socketMode?: FakeSocketModeOptions | boolean;
}

/** A file for the bot to download: its bytes from disk (streamed) or from memory. */
export interface AddFileInput {
  name: string;
  path?: string;
  bytes?: Buffer | string;
  title?: string;
  filetype?: string;
  /** Slack may send `""` right after an upload; pass that to test it. */
  mimetype?: string;
  /** The size Slack reports; default the real size. */
  size?: number;
  /** Uploader; default `U0FAKEUSER`. */
  user?: string;
  /** Share it there with a `file_share` message from `user` (see `shareFile`). */
  channel?: string;
  id?: string;
}

/** A message from a person (not the bot), e.g. the one that shared a recording. */
export interface AddMessageInput {
  channel: string;
  user: string;
  text?: string;
  ts?: string;
  thread_ts?: string;
  blocks?: unknown[];
  /** Makes it a `file_share` message and records the share on each file. */
  files?: SlackFileObject[];
}

/** A fake Slack Web API (plus file hosting and upload URLs) over real HTTP. */
export interface FakeSlack {
  /** `http://127.0.0.1:<port>/api/`: the app's `SLACK_API_URL`. */
  readonly apiUrl: string;
  /** `http://127.0.0.1:<port>`: where file URLs and upload URLs point. */
  readonly origin: string;
  /** Another origin (not Slack's) that serves files after a `redirectDownloads: "cdn"` 302. */
  readonly cdnOrigin: string;
  readonly botToken: string;
  readonly teamId: string;
  readonly botUserId: string;
  readonly botId: string;
  readonly appId: string;
  /** Fault knobs, read on every request. */
  readonly knobs: FakeSlackKnobs;
  /** The Socket Mode server, when created with `socketMode`. */
  readonly socket: FakeSocketMode | undefined;
  /** Every Web API request, in order. */
  readonly calls: readonly FakeCall[];
  /** Every GET of a file URL (both origins), with its headers. */
  readonly downloads: readonly FakeDownload[];
  readonly uploads: readonly FakeUpload[];
  /** Every successful `views.open/push/update/publish`, with the payload sent. */
  readonly views: readonly FakeViewRecord[];
  readonly ephemerals: readonly FakeEphemeral[];
  /** POSTs to URLs from `responseUrl()`. */
  readonly responseUrlPosts: readonly FakeResponseUrlPost[];
  addUser(user: FakeUser): FakeUser;
  /** Registers a channel; unregistered well-formed ids work too (as member, public). */
  addChannel(channel: Pick<FakeChannel, "id" | "name"> & Partial<FakeChannel>): FakeChannel;
  addFile(input: AddFileInput): SlackFileObject;
  /** Posts `file` into `channel` as `user` would, returning the `file_share` message. */
  shareFile(
    file: SlackFileObject,
    where: { channel: string; user?: string; text?: string; thread_ts?: string },
  ): FakeMessage;
  addMessage(input: AddMessageInput): FakeMessage;
  /** Every message of a channel, replies included, oldest first. */
  messages(channel: string): FakeMessage[];
  /** Parent (when known) and replies of the thread at `ts`, oldest first. */
  thread(channel: string, ts: string): FakeMessage[];
  /** Calls of one method. */
  callsTo(method: string): FakeCall[];
  /** The view as it now stands (after updates), by view id. */
  view(viewId: string): Record<string, unknown> | undefined;
  /** A fresh `response_url` on this server; POSTs to it land in `responseUrlPosts`. */
  responseUrl(): string;
  /** Forgets what the app did and clears the knobs; keeps users, channels and files added. */
  reset(): void;
  close(): Promise<void>;
}

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
    messages: (channel) => s.messages(channel),
    thread: (channel, ts) => s.thread(channel, ts),
    callsTo: (method) => s.calls.filter((c) => c.method === method),
    view: (viewId) => s.views.get(viewId)?.view,
    responseUrl: () => `${origin}/response/${randomBytes(8).toString("hex")}`,
    reset: () => {
      s.reset();
      socket?.reset();
      grants.clear();
      for (const key of Object.keys(knobs)) delete knobs[key as keyof FakeSlackKnobs];
    },
    close: async () => {
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
