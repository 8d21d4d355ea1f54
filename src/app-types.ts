import type { Authorize } from "@slack/bolt";
import type { DestinationStream } from "pino";
import type { Dispatcher } from "undici";
import type { HttpTimeouts } from "./http/http-timeouts.ts";
import type { JobsOptions, StageObserver, StoreResetTimings } from "./jobs/index.ts";
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
  /** HTTP server timeouts. */
  httpTimeouts?: Partial<HttpTimeouts>;
  /** Waits between tries to reach Slack: at start-up, and Socket Mode's reconnections. */
  socketBackoff?: Partial<ReconnectBackoff>;
  /** Told of every stage change after the metrics are (benchmarks time the status message). */
  onStageChange?: StageObserver;
  /** Slack's rate budget's waits, and the fetch it sends through. */
  slackBudget?: Pick<SlackBudgetOptions, "maxRetryWaitMs" | "timeoutMs" | "resend" | "fetch">;
  /** Opens a download's temp file: tests put a full disk behind it. */
  openDownloadFile?: OpenFile;
  /** Wraps the store once opened (tests make it fail for a while). */
  wrapStore?: (store: Store) => Store;
  /** The request journal: its file (default beside the store), its replay's waits. */
  journal?: Partial<Pick<PendingStartsOptions, "path" | "backoff" | "tellAfterMs">>;
  /** Redis: the deadline of one store call (default 2 s). */
  storeTimeoutMs?: number;
  /** The readiness checks' pace and the disk's floor. */
  readiness?: ReadinessTuning;
  /** How a loss of the store's data is looked for and reported. */
  storeReset?: Partial<StoreResetTimings>;
  /** Several installs instead of one token: each call's token, and Bolt's `authorize`. */
  installs?: { tokens: TokenSource; authorize: Authorize<boolean> };
}
