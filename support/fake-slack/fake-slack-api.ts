import type { ManifestSource } from "./app-manifest.ts";
import type { CanvasPolicy, FakeCanvas } from "./canvas-methods.ts";
import type { DeliveryTarget, FakeDelivery } from "./event-delivery.ts";
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
import type { Capability } from "./handed-out.ts";
import type { FakeSlackKnobs } from "./handle-api-request.ts";
import type { FakeEnterprise, FakeInstallation } from "./installations.ts";
import type { AuthorizeInstallInput } from "./oauth.ts";
import type { InstallContext } from "./slack-payloads.ts";
import type { FakeSocketMode, FakeSocketModeOptions } from "./socket-mode-server.ts";
import type { StrictOption, StrictRules } from "./strict-rules.ts";
import type { FakeViolation } from "./violations.ts";
import type { FakeStepExecution, RunWorkflowStepInput } from "./workflow-steps.ts";

/** The fake Slack's options and its handle, as `createFakeSlack` returns it. */
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
  /** Deliver Events API callbacks there from the start (see `deliverEvents`). */
  deliverEventsTo?: DeliveryTarget;
  /**
   * Runs a Socket Mode server too (`socket`): `apps.connections.open`, called with its
   * app-level token (`socket.appToken`), answers a fresh `ws://` URL of it.
   */
  socketMode?: FakeSocketModeOptions | boolean;
  /**
   * The manifest the workspace installed (a path, URL or parsed JSON): its bot scopes and
   * App Home Messages tab settings. Default manifests/manifest.http.json.
   */
  manifest?: ManifestSource;
  /**
   * Which of Slack's rules the fake enforces (strict-rules.ts): all by default; `false`, or
   * some rules set to false, for a test that needs the fake of old — say why beside it.
   */
  strict?: StrictOption;
  /**
   * The app is distributed outside the Slack Marketplace (a commercially distributed app
   * Slack has not approved for it): `conversations.history` and `conversations.replies`
   * answer it at 1 request a minute per workspace and with at most 15 objects a call
   * (history-methods.ts, rate-tiers.ts). Default false: an internal, customer-built app (or
   * a Marketplace one), which keeps Tier 3.
   */
  distributedApp?: boolean;
  /**
   * More workspaces beside the first (`teamId`), each with its own channels, members, files
   * and messages; not installed unless `installed` (then with a static bot token of the
   * manifest's scopes, `team(id).botToken`), so the app installs them by OAuth.
   */
  teams?: FakeTeamOption[];
  /** An Enterprise Grid organisation; workspaces with `enterprise: true` belong to it. */
  enterprise?: FakeEnterprise & {
    /** The bot user of an org-wide install (Grid user ids are org-wide); default `W0FAKEBOT`. */
    botUserId?: string;
  };
  /** The app's OAuth credentials; default a random client id and secret. */
  oauth?: { clientId?: string; clientSecret?: string };
  /**
   * The origin the app reaches the fake at when something stands between them (a fault
   * proxy, support/helpers/http-fault-proxy.ts): file URLs, upload URLs and redirects point
   * there, so downloads and uploads pass it too. Default: the fake's own origin.
   */
  publicOrigin?: string;
}

/** A workspace beside the first one. */
export interface FakeTeamOption {
  id: string;
  /** Default "Workspace <id>". */
  name?: string;
  /** Default the id in lower case. */
  domain?: string;
  /** It belongs to the fake's enterprise. */
  enterprise?: boolean;
  /** The bot user of a workspace install there; default `U0BOT<id>` (`W0FAKEBOT` on Grid). */
  botUserId?: string;
  /** Installed from the start with a static bot token of the manifest's scopes. */
  installed?: boolean;
}

/** One workspace of the fake: what people do there, and what the app posted there. */
export type FakeTeam = Pick<
  FakeSlack,
  | "addUser"
  | "addChannel"
  | "addFile"
  | "addFileObject"
  | "addMessage"
  | "shareFile"
  | "deliverShare"
  | "shareCanvas"
  | "shareSnippet"
  | "messages"
  | "thread"
> & {
  readonly teamId: string;
  readonly enterpriseId: string | undefined;
  /** The bot token of the live installation acting here (undefined: not installed). */
  readonly botToken: string | undefined;
  /** The bot user of the live installation acting here. */
  readonly botUserId: string | undefined;
  /**
   * The installation fields Slack puts in commands and interactions from this workspace
   * (`team` with its organisation, `enterprise`, `is_enterprise_install`): spread into
   * `blockActionPayload`, `messageActionPayload`, `viewSubmissionPayload` inputs.
   */
  readonly installContext: InstallContext & { teamId: string };
  /** The same for `commandFields`. */
  readonly commandContext: {
    team_id: string;
    team_domain: string;
    enterprise_id?: string;
    enterprise_name?: string;
    is_enterprise_install: boolean;
  };
  /** The `event_callback` envelope Slack would wrap `event` in for this workspace's install. */
  envelope(event: Record<string, unknown>): Record<string, unknown>;
};

/** Which installation {@link FakeSlack.uninstall} removes. */
export type UninstallTarget = { team: string } | { enterprise: true } | FakeInstallation;

/** Where a helper shares a file: a conversation, as someone (default `U0FAKEUSER`). */
export interface ShareWhere {
  channel: string;
  user?: string;
  text?: string;
  thread_ts?: string;
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
  /**
   * Shared nowhere the bot is (a Workflow Builder form's upload, say): the app's tokens
   * cannot read it until it is shared in a conversation the bot is in (`botCanSee`).
   */
  hiddenFromBot?: true;
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
  /**
   * `http://127.0.0.1:<port>`: where the fake listens, and where file URLs and upload URLs
   * point unless `publicOrigin` says otherwise.
   */
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
  /** The rules this fake enforces. */
  readonly strict: Readonly<StrictRules>;
  /**
   * What the app did that Slack tells it not to (violations.ts): calls inside a Retry-After
   * window the fake announced, `response_action: "errors"` naming no input block.
   */
  readonly violations: readonly FakeViolation[];
  /** The Socket Mode server, when created with `socketMode`. */
  readonly socket: FakeSocketMode | undefined;
  /** Every Web API request, in order. */
  readonly calls: readonly FakeCall[];
  /** Canvases the app made (`canvases.create`), by id, with their Markdown and access. */
  readonly canvases: ReadonlyMap<string, FakeCanvas>;
  /** What the workspace allows of canvases: plan, admin setting, scope (`reset()` allows). */
  setCanvasPolicy(policy: CanvasPolicy): void;
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
  /**
   * Registers a file object as given (one from a Slack payload fixture, say), with its bytes
   * for `url_private_download` and, for media, Slack's transcoded copy for `files-tmb/`.
   */
  addFileObject(
    file: Record<string, unknown>,
    content?: { bytes?: Buffer; preview?: Buffer },
  ): SlackFileObject;
  /**
   * From now on (or with undefined, no longer), send the app the Events API callbacks Slack
   * would: a `message` event for each of the bot's own posts, `file_shared` and a
   * `file_share` message for its uploads, and the events of `deliverShare`, `shareCanvas`
   * and `shareSnippet`. Off by default: tests that send their own events keep their meaning.
   */
  deliverEvents(target: DeliveryTarget | undefined): void;
  /** Every callback delivered, with the app's answer, in order. */
  readonly deliveries: readonly FakeDelivery[];
  /** Resolves when every callback queued so far has been delivered. */
  deliveriesSettled(): Promise<void>;
  /** Callbacks queued and not yet answered by the app. */
  readonly deliveriesPending: number;
  /** Sends the events Slack sends for a share someone made (`file_shared` + the message). */
  deliverShare(message: FakeMessage): void;
  /** Someone shares a canvas: its file object, the message, and the events Slack sends. */
  shareCanvas(where: ShareWhere & { title?: string }): {
    file: SlackFileObject;
    message: FakeMessage;
  };
  /** Someone posts a text snippet: its file object, the message, and the events. */
  shareSnippet(where: ShareWhere & { content: string; filetype?: string }): {
    file: SlackFileObject;
    message: FakeMessage;
  };
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
  /**
   * Every capability handed to the app so far — tokens, step tokens, OAuth codes and states,
   * Socket Mode tickets, and the `trigger_id`s and `response_url`s of what was delivered —
   * none of which may appear in its log.
   */
  handedOut(): Capability[];
  /** A workspace by id (the first is `teamId`). */
  team(teamId: string): FakeTeam;
  /** The enterprise, when created with one. */
  readonly enterprise: FakeEnterprise | undefined;
  /** The app's OAuth credentials (`SLACK_CLIENT_ID`, `SLACK_CLIENT_SECRET`). */
  readonly oauth: { clientId: string; clientSecret: string };
  /**
   * Every installation, in order, with its current tokens, refresh tokens and refresh count
   * (the first is the one of `botToken`); uninstalled ones stay, marked.
   */
  readonly installations: readonly FakeInstallation[];
  /**
   * The consent page: checks the authorize URL the app sent the browser to, and returns the
   * URL Slack redirects back to (with `code` and `state`, or `error=access_denied`); throws
   * `FakeOAuthRefusal` where Slack shows an error page instead (oauth.ts).
   */
  authorizeInstall(input: AuthorizeInstallInput): string;
  /** A token answers `token_expired` from now on (and a 401 for file downloads). */
  expireToken(token: string): void;
  /** A refresh token answers `invalid_refresh_token` from now on. */
  revokeRefreshToken(token: string): void;
  /**
   * Removes the app from a workspace (or the org): its tokens answer `token_revoked`, and
   * the app is sent `tokens_revoked` then `app_uninstalled` (over HTTP when `deliverEvents`
   * is on, else over the socket when there is one). Returns the installation removed.
   */
  uninstall(target: UninstallTarget): Promise<FakeInstallation>;
  /**
   * An org admin removes workspace `team` from the org-wide install acting there: its token
   * no longer reaches that workspace, and an org-ready app that subscribes to it is sent
   * `team_access_revoked` naming the workspace. Returns the org-wide installation.
   */
  revokeTeamAccess(team: string): Promise<FakeInstallation>;
  /** Workflow Builder runs the app's step (workflow-steps.ts); await `outcome` for its end. */
  runWorkflowStep(input: RunWorkflowStepInput): FakeStepExecution;
  /** Forgets what the app did and clears the knobs; keeps users, channels and files added. */
  reset(): void;
  close(): Promise<void>;
}
