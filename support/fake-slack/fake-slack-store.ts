import { randomBytes } from "node:crypto";
import type { InstalledApp } from "./app-manifest.ts";
import type { CanvasPolicy, FakeCanvas } from "./canvas-methods.ts";
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
import { RateLimiter } from "./rate-tiers.ts";
import type { StrictRules } from "./strict-rules.ts";
import type { FakeViolation } from "./violations.ts";

/** Where a registered file's bytes come from. */
export type FileSource = { path: string } | { bytes: Buffer };

/** A modal or Home tab as it currently stands. */
export interface StoredView {
  id: string;
  view: Record<string, unknown>;
  user_id?: string;
  hash: string;
  root_view_id: string;
  previous_view_id: string | null;
}

/** Fixed identities of the fake workspace. */
export interface FakeWorkspace {
  teamId: string;
  botUserId: string;
  botId: string;
  appId: string;
  origin: string;
  /** The workspace's name (`auth.test`'s `team`); default "Fake Workspace". */
  teamName?: string;
  /** Its subdomain (`auth.test`'s `url`); default "fake". */
  domain?: string;
  /** The Enterprise Grid organisation it belongs to, if any. */
  enterpriseId?: string;
}

/** What every workspace of one fake shares: the records of what the app did. */
export interface StoreLogs {
  calls: FakeCall[];
  violations: FakeViolation[];
  downloads: FakeDownload[];
  uploads: FakeUpload[];
  viewRecords: FakeViewRecord[];
  ephemerals: FakeEphemeral[];
  responseUrlPosts: FakeResponseUrlPost[];
}

/** The rules of Slack the store's methods apply, and the clock they read. */
export interface StoreRules {
  strict: StrictRules;
  /** The install the manifest describes: bot scopes, Messages tab. */
  installed: InstalledApp;
  /** The fake's clock (the `now` knob, else the wall clock). */
  now: () => number;
  /**
   * The app is distributed outside the Slack Marketplace: `conversations.history` and
   * `conversations.replies` at 1 request a minute and 15 objects a call (history-methods.ts).
   */
  distributedApp: boolean;
}

/** Everything the fake Slack remembers; the Web API methods read and write it. */
export class FakeSlackStore {
  readonly workspace: FakeWorkspace;
  readonly strict: StrictRules;
  readonly installed: InstalledApp;
  readonly now: () => number;
  /** The app is distributed outside the Marketplace (history-methods.ts, rate-tiers.ts). */
  readonly distributedApp: boolean;
  /** Triggers `views.open` / `views.push` already exchanged (each works once). */
  readonly exchangedTriggers = new Set<string>();
  /** Rate buckets per (workspace, method) and the Retry-After windows announced. */
  readonly rates = new RateLimiter();
  /** Calls inside an announced Retry-After window, and other violations (violations.ts). */
  readonly violations: FakeViolation[];
  readonly users = new Map<string, FakeUser>();
  readonly channels = new Map<string, FakeChannel>();
  readonly files = new Map<
    string,
    {
      file: SlackFileObject;
      source?: FileSource;
      /** Slack's transcoded copy of audio or video, served under `files-tmb/`. */
      preview?: FileSource;
      /** Shared nowhere the bot is when it was added (see `botCanSee`, file-object.ts). */
      hiddenFromBot?: boolean;
    }
  >();
  /** Upload URL path → file id. */
  readonly uploadPaths = new Map<string, string>();
  /** Canvases made with `canvases.create`, by id (also in `files`, as Slack lists them). */
  readonly canvases = new Map<string, FakeCanvas>();
  /** What the workspace's plan and admins allow of canvases (see `canvas-methods.ts`). */
  canvasPolicy: CanvasPolicy = "allowed";
  readonly uploads: FakeUpload[];
  readonly views = new Map<string, StoredView>();
  readonly homeViews = new Map<string, string>();
  readonly viewRecords: FakeViewRecord[];
  readonly calls: FakeCall[];
  readonly downloads: FakeDownload[];
  readonly ephemerals: FakeEphemeral[];
  readonly responseUrlPosts: FakeResponseUrlPost[];
  /**
   * Whether a conversation id belongs to another workspace of the same fake: such an id is
   * never synthesised here (a token never sees another team's channels).
   */
  foreignChannel: (id: string) => boolean = () => false;
  #messages = new Map<string, FakeMessage[]>();
  /** Ids and files that `addUser`/`addChannel`/`addFile` registered survive `reset()`. */
  #seeded = { users: new Set<string>(), channels: new Set<string>(), files: new Set<string>() };
  #lastMicros = 0n;
  /**
   * Told of every Events API event the workspace would send the app (its own posts and
   * uploads, people's shares through the helpers); see slack-events.ts.
   */
  onEvent: (event: Record<string, unknown>) => void = () => {};

  constructor(workspace: FakeWorkspace, rules: StoreRules, logs?: StoreLogs) {
    this.workspace = workspace;
    this.strict = rules.strict;
    this.installed = rules.installed;
    this.now = rules.now;
    this.distributedApp = rules.distributedApp;
    this.calls = logs?.calls ?? [];
    this.violations = logs?.violations ?? [];
    this.downloads = logs?.downloads ?? [];
    this.uploads = logs?.uploads ?? [];
    this.viewRecords = logs?.viewRecords ?? [];
    this.ephemerals = logs?.ephemerals ?? [];
    this.responseUrlPosts = logs?.responseUrlPosts ?? [];
  }

  /** The records this store writes, to share them with the other workspaces of a fake. */
  get logs(): StoreLogs {
    return {
      calls: this.calls,
      violations: this.violations,
      downloads: this.downloads,
      uploads: this.uploads,
      viewRecords: this.viewRecords,
      ephemerals: this.ephemerals,
      responseUrlPosts: this.responseUrlPosts,
    };
  }

  /** Who posted the parent of the thread at `threadTs`, for a reply's `parent_user_id`. */
  parentUser(channel: string, threadTs: string | undefined): string | undefined {
    return threadTs === undefined ? undefined : this.message(channel, threadTs)?.user;
  }

  /**
   * A fresh message ts from the wall clock, like Slack's, yet strictly greater than every
   * earlier one (it is the ordering key), including seeded ones and event `ts`s.
   */
  nextTs(): string {
    const now = BigInt(Date.now()) * 1000n;
    this.#lastMicros = now > this.#lastMicros ? now : this.#lastMicros + 1n;
    const text = this.#lastMicros.toString();
    return `${text.slice(0, -6)}.${text.slice(-6)}`;
  }

  /** Makes later `nextTs()` values exceed `ts` (a message seeded with its own ts). */
  #observeTs(ts: string): void {
    const [seconds = "0", fraction = ""] = ts.split(".");
    const micros =
      BigInt(seconds) * 1_000_000n + BigInt(fraction.padEnd(6, "0").slice(0, 6) || "0");
    if (micros > this.#lastMicros) this.#lastMicros = micros;
  }

  /** A Slack-looking id such as `F0A1B2C3D4E`. */
  newId(prefix: string): string {
    return `${prefix}0${randomBytes(5).toString("hex").toUpperCase()}`;
  }

  /** Registers (or replaces) a user; seeded users survive `reset()`. */
  addUser(user: FakeUser, seeded = true): FakeUser {
    this.users.set(user.id, user);
    if (seeded) this.#seeded.users.add(user.id);
    return user;
  }

  addChannel(channel: FakeChannel): FakeChannel {
    this.channels.set(channel.id, channel);
    this.#seeded.channels.add(channel.id);
    return channel;
  }

  /** The channel by id, synthesised for any well-formed id so tests need not register one. */
  channel(id: string): FakeChannel | undefined {
    const known = this.channels.get(id);
    if (known !== undefined) return known;
    if (!/^[CDGUW][A-Z0-9]{2,}$/.test(id) || this.foreignChannel(id)) return undefined;
    return {
      id,
      name: id.toLowerCase(),
      is_private: id.startsWith("G"),
      is_im: id.startsWith("D") || id.startsWith("U") || id.startsWith("W"),
      is_member: true,
    };
  }

  /**
   * The conversation's members as `conversations.members` lists them: its `members` (or
   * every person the fake knows), plus the bot when it is a member, minus deleted users.
   */
  membersOf(channel: FakeChannel): string[] {
    const bot = this.workspace.botUserId;
    const people =
      channel.members ??
      [...this.users.values()].filter((u) => u.id !== bot && u.is_bot !== true).map((u) => u.id);
    const active = people.filter((id) => this.users.get(id)?.deleted !== true && id !== bot);
    return channel.is_member ? [...active, bot] : active;
  }

  addFile(
    file: SlackFileObject,
    source: FileSource | undefined,
    seeded: boolean,
    preview?: FileSource,
  ): void {
    this.files.set(file.id, {
      file,
      ...(source === undefined ? {} : { source }),
      ...(preview === undefined ? {} : { preview }),
    });
    if (seeded) this.#seeded.files.add(file.id);
  }

  /** Appends a message to its channel, keeping the channel sorted by ts. */
  addMessage(message: FakeMessage): FakeMessage {
    if (!/^\d+\.\d{1,6}$/.test(message.ts)) throw new Error(`fake Slack: bad ts ${message.ts}`);
    this.#observeTs(message.ts);
    const list = this.#messages.get(message.channel) ?? [];
    list.push(message);
    list.sort((a, b) => compareTs(a.ts, b.ts));
    this.#messages.set(message.channel, list);
    return message;
  }

  /** Every message of a channel, replies included, oldest first. */
  messages(channel: string): FakeMessage[] {
    return [...(this.#messages.get(channel) ?? [])];
  }

  message(channel: string, ts: string): FakeMessage | undefined {
    return this.#messages.get(channel)?.find((m) => m.ts === ts);
  }

  /** The thread rooted at `ts`: its parent (when known) then its replies, oldest first. */
  thread(channel: string, ts: string): FakeMessage[] {
    return this.messages(channel).filter((m) => m.ts === ts || m.thread_ts === ts);
  }

  /** Replies of a thread, for the `reply_count` / `latest_reply` fields of its parent. */
  replies(channel: string, parentTs: string): FakeMessage[] {
    return this.messages(channel).filter((m) => m.thread_ts === parentTs && m.ts !== parentTs);
  }

  /** The upload record of a file id, if it went through `getUploadURLExternal`. */
  upload(fileId: string): FakeUpload | undefined {
    return this.uploads.find((u) => u.file_id === fileId);
  }

  /** Forgets everything the app did; keeps what the test seeded with `add*`. */
  reset(): void {
    this.#messages.clear();
    for (const id of [...this.users.keys()]) if (!this.#seeded.users.has(id)) this.users.delete(id);
    for (const id of [...this.channels.keys()]) {
      if (!this.#seeded.channels.has(id)) this.channels.delete(id);
    }
    for (const id of [...this.files.keys()]) if (!this.#seeded.files.has(id)) this.files.delete(id);
    this.uploadPaths.clear();
    this.canvases.clear();
    this.canvasPolicy = "allowed";
    this.views.clear();
    this.homeViews.clear();
    this.exchangedTriggers.clear();
    this.rates.reset();
    for (const list of [
      this.uploads,
      this.viewRecords,
      this.calls,
      this.downloads,
      this.ephemerals,
      this.responseUrlPosts,
      this.violations,
    ] as unknown[][]) {
      list.length = 0;
    }
  }
}

/** Orders Slack timestamps numerically (`"9.1"` < `"10.0"`), seconds then fraction. */
export function compareTs(a: string, b: string): number {
  const [as = "0", af = ""] = a.split(".");
  const [bs = "0", bf = ""] = b.split(".");
  const seconds = Number(as) - Number(bs);
  if (seconds !== 0) return seconds;
  return Number(af.padEnd(6, "0")) - Number(bf.padEnd(6, "0"));
}
