import type { IncomingHttpHeaders } from "node:http";

/** A workspace member the fake knows (`users.info`). */
export interface FakeUser {
  id: string;
  name: string;
  real_name: string;
  /** Defaults to `real_name`. */
  display_name?: string;
  /** Slack locale such as `en-US` or `vi-VN`; returned only with `include_locale`. */
  locale?: string;
  tz?: string;
  is_bot?: boolean;
  /** Workspace roles, as `users.info` reports them (all false when unset). */
  is_admin?: boolean;
  is_owner?: boolean;
  is_primary_owner?: boolean;
  /** A guest: multi-channel (`is_restricted`) or single-channel (`is_ultra_restricted`). */
  is_restricted?: boolean;
  is_ultra_restricted?: boolean;
  deleted?: boolean;
}

/** A conversation the fake knows (`conversations.info`, posting rules). */
export interface FakeChannel {
  id: string;
  name: string;
  is_private: boolean;
  is_im: boolean;
  /** A group DM (`G…` ids of old, `C…` now): its scopes are `mpim:*`, canvases refuse it. */
  is_mpim?: boolean;
  /** When false, posting answers `not_in_channel`, as for a bot never invited. */
  is_member: boolean;
  /**
   * Who is in the conversation (`conversations.members`), people only; the bot is in it
   * when `is_member`. Unset: every person the fake knows.
   */
  members?: string[];
  /**
   * A Slack Connect channel another organisation's workspace hosts: its events reach the
   * app with the host in the envelope's `team_id` (and `enterprise_id`), the install in
   * `authorizations` (test/fixtures/slack/slack-connect.json); `conversations.info` says
   * `is_ext_shared`.
   */
  connect?: ConnectHost;
}

/** The workspace (and organisation) hosting a Slack Connect channel. */
export interface ConnectHost {
  teamId: string;
  enterpriseId?: string;
}

/** Slack's file object, as `files.info` and `file_share` events carry it. */
export interface SlackFileObject {
  id: string;
  created: number;
  timestamp: number;
  name: string;
  title: string;
  mimetype: string;
  filetype: string;
  pretty_type: string;
  user: string;
  user_team: string;
  size: number;
  /** `hosted` for uploads; `snippet`, `quip` (canvases) and others for Slack's own kinds. */
  mode: string;
  is_external: false;
  is_public: boolean;
  url_private: string;
  url_private_download: string;
  permalink: string;
  channels: string[];
  groups: string[];
  ims: string[];
  shares: { public?: Record<string, FileShare[]>; private?: Record<string, FileShare[]> };
  /** Snippets and canvases can be edited in Slack. */
  editable?: boolean;
  /** A snippet's first lines, and how many lines it has beyond them. */
  preview?: string;
  lines?: number;
  lines_more?: number;
  preview_is_truncated?: boolean;
}

/** One place a file was shared, as in `file.shares.public[channel]`. */
export interface FileShare {
  ts: string;
  thread_ts?: string;
  channel_name: string;
  team_id: string;
  share_user_id: string;
}

/** `metadata` of a message. */
export interface MessageMetadata {
  event_type: string;
  event_payload: Record<string, unknown>;
}

/** A message as the fake stores it; the API hides `channel` and, unless asked, `metadata`. */
export interface FakeMessage {
  type: "message";
  channel: string;
  ts: string;
  text: string;
  user?: string;
  bot_id?: string;
  app_id?: string;
  subtype?: string;
  thread_ts?: string;
  blocks?: unknown[];
  attachments?: unknown[];
  metadata?: MessageMetadata;
  files?: SlackFileObject[];
  upload?: boolean;
  unfurl_links?: boolean;
  unfurl_media?: boolean;
  edited?: { user: string; ts: string };
  reactions?: { name: string; users: string[]; count: number }[];
}

/** An ephemeral message: never in history, only seen by `user`. */
export interface FakeEphemeral {
  channel: string;
  user: string;
  message_ts: string;
  text: string;
  thread_ts?: string;
  blocks?: unknown[];
}

/** A file sent through `files.getUploadURLExternal` + upload URL + `completeUploadExternal`. */
export interface FakeUpload {
  file_id: string;
  filename: string;
  /** Title given at completion (the SDK defaults it to the filename). */
  title: string;
  /** `length` declared to `getUploadURLExternal`. */
  length: number;
  /** Bytes actually received at the upload URL (0 until then). */
  bytes: number;
  sha256: string;
  /** The bytes themselves, kept only up to `keepUploadBytes` so big uploads cost no memory. */
  data?: Buffer;
  /** Content type of the upload POST: `multipart/form-data; …` for the SDK. */
  content_type: string;
  completed: boolean;
  /** Deleted with `files.delete`. */
  deleted?: boolean;
  channel_id?: string;
  thread_ts?: string;
  initial_comment?: string;
}

/** One `views.*` call that succeeded. */
export interface FakeViewRecord {
  op: "open" | "push" | "update" | "publish";
  view_id: string;
  /** The view payload the app sent. */
  view: Record<string, unknown>;
  user_id?: string;
  trigger_id?: string;
  at: number;
}

/** One Web API request, whatever its outcome. */
export interface FakeCall {
  method: string;
  /** Form/JSON/query fields; JSON-encoded fields (`blocks`, `view`, `files`…) decoded. */
  args: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  at: number;
  /** HTTP status answered (200, or 429 when rate limited; 0: never answered, `outage`). */
  status: number;
  /** The `error` answered, if any. */
  error?: string;
}

/** One GET of a file URL (authorised or not) on the fake's origin or its CDN origin. */
export interface FakeDownload {
  origin: "slack" | "cdn";
  path: string;
  fileId?: string;
  headers: IncomingHttpHeaders;
  /** Whether the file bytes were served (false: the HTML login page or a 404). */
  served: boolean;
  status: number;
  at: number;
}

/** One POST to a `response_url` handed out by the fake. */
export interface FakeResponseUrlPost {
  id: string;
  body: unknown;
  headers: IncomingHttpHeaders;
  at: number;
}
