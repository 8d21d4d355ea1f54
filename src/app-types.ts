import type { Authorize } from "@slack/bolt";
import type { DestinationStream } from "pino";
import type { Dispatcher } from "undici";
import type { HttpTimeouts } from "./http/http-timeouts.ts";
import type {
  DiskFullWatch,
  Jobs,
  JobsOptions,
  StageObserver,
  StoreResetTimings,
} from "./jobs/index.ts";
import type { Logger } from "./logger.ts";
import type { RetryPolicy } from "./notetaker/index.ts";
import type { ReadinessTuning } from "./observability/app-readiness.ts";
import type { ReconnectBackoff } from "./slack/connection/socket-connection.ts";
import type { OpenFile } from "./slack/gateway/file-sink.ts";
import type { TokenSource } from "./slack/installs/token-source.ts";
import type { PendingStartsOptions } from "./slack/listeners/replay-pending.ts";
import type { SlackBudgetOptions } from "./slack/rate-budget/slack-budget.ts";
import type { Store } from "./store/index.ts";

/** What tests and the process may swap in. */
export interface AppDeps {
  logDestination?: DestinationStream;
  /** undici dispatcher for the Note Service and Slack file downloads. */
  dispatcher?: Dispatcher;
  /** Where recordings and DOCX files wait between steps. */
  tempDir?: string;
  noteTakerRetry?: RetryPolicy;
  /** How long the Note Service may be unreachable before the log and readiness say so. */
  noteServiceUnreachableAfterMs?: number;
  jobs?: Pick<JobsOptions, "limits" | "failurePolicy" | "runner" | "admission">;
  /** HTTP server timeouts; tests shorten them rather than wait seconds. */
  httpTimeouts?: Partial<HttpTimeouts>;
  /**
   * Waits between tries to reach Slack: at start-up while it cannot be reached, and Socket
   * Mode's reconnections; tests shorten them.
   */
  socketBackoff?: Partial<ReconnectBackoff>;
  /** Told of every stage change after the metrics are (benchmarks time the status message). */
  onStageChange?: StageObserver;
  /** Slack's rate budget: tests shorten its waits. */
  slackBudget?: Pick<SlackBudgetOptions, "maxRetryWaitMs" | "timeoutMs" | "resend" | "fetch">;
  /** Opens a download's temp file: tests put a full disk behind it. */
  openDownloadFile?: OpenFile;
  /** Wraps the store once opened (tests make it fail for a while). */
  wrapStore?: (store: Store) => Store;
  /**
   * The request journal (what the store could not record after Slack's ack): its file
   * (default beside the store), the replay's waits, and how long a kept upload waits before
   * its thread hears that it waits for the store. Tests shorten them.
   */
  journal?: Partial<Pick<PendingStartsOptions, "path" | "backoff" | "tellAfterMs">>;
  /** Redis: the deadline of one store call (default 2 s); tests shorten it. */
  storeTimeoutMs?: number;
  /** The readiness checks' pace and the disk's floor; tests change them. */
  readiness?: ReadinessTuning;
  /** How a loss of the store's data is looked for and reported; tests shorten it. */
  storeReset?: Partial<StoreResetTimings>;
  /**
   * Installs (several workspaces, an organisation) instead of the single-token mode: where
   * every Slack call gets its install's bot token, and Bolt's `authorize` for requests.
   */
  installs?: { tokens: TokenSource; authorize: Authorize<boolean> };
}

export interface MeetingNotesApp {
  readonly logger: Logger;
  readonly store: Store;
  readonly jobs: Jobs;
  /** The temp folder's disk as downloads found it: full since when, if it is. */
  readonly diskFull: DiskFullWatch;
  /**
   * Serves /healthz and /readyz, connects to Slack (for as long as Slack cannot be reached;
   * rejects with a StartupError when it refuses a token), then receives and resumes every
   * active job; resolves with the HTTP port.
   */
  start(): Promise<number>;
  /** Once started with METRICS_PORT set: the port serving `/metrics` alone. */
  readonly metricsPort: number | undefined;
  /**
   * Resolves once no Slack request is being handled and no job step is under way or due:
   * whatever the bot does next waits for a timer or a request. Tests wait on it rather than
   * sleep to show that something did not happen.
   */
  idle(): Promise<void>;
  /**
   * Stops taking work, lets Slack requests in hand finish (up to 10 s) and running steps
   * reach a checkpoint, closes the store.
   */
  stop(): Promise<void>;
}
