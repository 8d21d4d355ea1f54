import type { FakeSlackStore } from "./fake-slack-store.ts";
import type { FakeChannel, FakeMessage, SlackFileObject } from "./fake-slack-types.ts";
import { PERMALINK_HOST } from "./message-helpers.ts";

/** Slack's `filetype`, `mimetype` and `pretty_type` for the extensions the bot meets. */
const TYPES: Record<string, [filetype: string, mimetype: string, pretty: string]> = {
  mp3: ["mp3", "audio/mpeg", "MP3"],
  m4a: ["m4a", "audio/mp4", "M4A"],
  wav: ["wav", "audio/wav", "WAV"],
  ogg: ["ogg", "audio/ogg", "Ogg"],
  webm: ["webm", "video/webm", "WebM"],
  mp4: ["mp4", "video/mp4", "MPEG 4 Video"],
  mov: ["mov", "video/quicktime", "QuickTime Movie"],
  mkv: ["mkv", "video/x-matroska", "Matroska Video"],
  txt: ["text", "text/plain", "Plain Text"],
  md: ["markdown", "text/markdown", "Markdown (raw)"],
  pdf: ["pdf", "application/pdf", "PDF"],
  docx: [
    "docx",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "Word Document",
  ],
};

/** What a file object is made from. */
export interface FileObjectInput {
  id: string;
  name: string;
  title?: string;
  filetype?: string;
  mimetype?: string;
  size: number;
  user: string;
}

/**
 * A Slack file object whose `url_private(_download)` point at the fake's origin, with the
 * `files-pri/<team>-<id>/…` shape of Slack's own URLs.
 */
export function buildFileObject(store: FakeSlackStore, input: FileObjectInput): SlackFileObject {
  const { origin, teamId } = store.workspace;
  const extension = /\.([^.]+)$/.exec(input.name)?.[1]?.toLowerCase() ?? "";
  const [filetype, mimetype, pretty] = TYPES[extension] ?? [
    extension || "binary",
    "application/octet-stream",
    "Binary",
  ];
  const created = Math.floor(Date.now() / 1000);
  const encoded = encodeURIComponent(input.name);
  return {
    id: input.id,
    created,
    timestamp: created,
    name: input.name,
    title: input.title ?? input.name,
    mimetype: input.mimetype ?? mimetype,
    filetype: input.filetype ?? filetype,
    pretty_type: pretty,
    user: input.user,
    user_team: teamId,
    size: input.size,
    mode: "hosted",
    is_external: false,
    is_public: false,
    url_private: `${origin}/files-pri/${teamId}-${input.id}/${encoded}`,
    url_private_download: `${origin}/files-pri/${teamId}-${input.id}/download/${encoded}`,
    permalink: `${PERMALINK_HOST}/files/${input.user}/${input.id}/${encoded}`,
    channels: [],
    groups: [],
    ims: [],
    shares: {},
  };
}

/**
 * Whether the app's tokens may read a file: Slack's `files:read` lets an app "view files
 * shared in channels and conversations that your slack app has been added to"
 * (https://api.slack.com/scopes/files:read). The fake holds to it for files a test added as
 * hidden from the bot (a Workflow Builder form's upload, say), until one is shared in a
 * conversation the bot is in; every other file it shows as before.
 */
export function botCanSee(store: FakeSlackStore, fileId: string): boolean {
  const entry = store.files.get(fileId);
  if (entry === undefined) return false;
  if (entry.hiddenFromBot !== true) return true;
  const { channels = [], groups = [], ims = [] } = entry.file;
  return [...channels, ...groups, ...ims].some((id) => store.channel(id)?.is_member === true);
}

/** Records on the file that it was shared by `message` (as `files.info` then shows). */
export function addShare(
  store: FakeSlackStore,
  file: SlackFileObject,
  channel: FakeChannel,
  message: Pick<FakeMessage, "ts" | "thread_ts" | "user">,
): void {
  // Objects taken from events (fixtures, Slack Connect stubs) may lack the share lists.
  file.channels ??= [];
  file.groups ??= [];
  file.ims ??= [];
  file.shares ??= {};
  const list = channel.is_im ? file.ims : channel.is_private ? file.groups : file.channels;
  if (!list.includes(channel.id)) list.push(channel.id);
  const kind = channel.is_private || channel.is_im ? "private" : "public";
  const byChannel = file.shares[kind] ?? {};
  file.shares[kind] = byChannel;
  const shares = byChannel[channel.id] ?? [];
  byChannel[channel.id] = shares;
  shares.push({
    ts: message.ts,
    ...(message.thread_ts !== undefined ? { thread_ts: message.thread_ts } : {}),
    channel_name: channel.name,
    team_id: store.workspace.teamId,
    share_user_id: message.user ?? file.user,
  });
}

/**
 * A canvas as Slack lists it among a conversation's files: filetype `quip`, mimetype
 * `application/vnd.slack-docs`, pretty type "Canvas", mode `quip` (see
 * test/fixtures/slack-payloads/file-canvas.json for where these come from).
 */
export function buildCanvasObject(
  store: FakeSlackStore,
  input: { id: string; title: string; user: string; size: number },
): SlackFileObject {
  const name = input.title.replace(/\s+/g, "_");
  return {
    ...buildFileObject(store, { ...input, name, filetype: "quip" }),
    mimetype: "application/vnd.slack-docs",
    pretty_type: "Canvas",
    mode: "quip",
    editable: true,
  };
}

/**
 * A text snippet as Slack makes one in the message composer: mode `snippet`, a text
 * filetype, mimetype `text/plain`, its first lines as `preview` (see
 * test/fixtures/slack-payloads/file-snippet.json).
 */
export function buildSnippetObject(
  store: FakeSlackStore,
  input: { id: string; content: string; user: string; filetype?: string; title?: string },
): SlackFileObject {
  const filetype = input.filetype ?? "text";
  const lines = input.content.split("\n");
  const name = `-.${filetype === "text" ? "txt" : filetype}`;
  return {
    ...buildFileObject(store, {
      id: input.id,
      name,
      title: input.title ?? "Untitled",
      user: input.user,
      size: Buffer.byteLength(input.content),
      filetype,
      mimetype: "text/plain",
    }),
    pretty_type: filetype === "text" ? "Plain Text" : filetype,
    mode: "snippet",
    editable: true,
    preview: lines.slice(0, 5).join("\n"),
    lines: lines.length,
    lines_more: Math.max(0, lines.length - 5),
    preview_is_truncated: lines.length > 5,
  };
}
