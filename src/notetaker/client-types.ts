import type { Logger } from "pino";
import type { Dispatcher } from "undici";
import type { Progress } from "./progress.ts";
import type { ResultLinkOptions } from "./result-link-guard.ts";
import type { RetryPolicy, Sleep } from "./retry-policy.ts";
import type { Dialog, SpeakerHint, SpeakerMapInput } from "./schemas.ts";

/** A remote task as a poll sees it: still running (with progress), done, or failed. */
export type Task<Result> =
  | { status: "running"; rawStatus: string; progress: Progress | null }
  | { status: "completed"; result: Result }
  | { status: "failed"; message: string };

export interface SubmitAudioInput {
  path: string;
  filename: string;
  speakers?: readonly SpeakerHint[];
  contextText?: string;
  languageHint?: string;
}

/** A recording still arriving: `open` streams exactly `size` bytes, each time it is called. */
export interface RelayAudioInput extends Omit<SubmitAudioInput, "path"> {
  size: number;
  open: () => AsyncIterable<Uint8Array>;
}

export interface SubmitDialogInput {
  dialog: Dialog;
  speakerMap?: SpeakerMapInput;
  contextText?: string;
  template?: { filename: string; data: Uint8Array };
}

export interface NoteTakerClientOptions {
  /** Including `/api/v1/third-party/note-taker`. */
  baseUrl: string;
  apiKey: string;
  dispatcher?: Dispatcher;
  logger?: Logger;
  retryPolicy?: RetryPolicy;
  /** Time allowed for an answer's headers and body on ordinary calls. */
  requestTimeoutMs?: number;
  /** Time allowed for the answer to an audio upload once it is sent. */
  uploadTimeoutMs?: number;
  resultLinks?: ResultLinkOptions;
  maxDialogBytes?: number;
  maxDocxBytes?: number;
  sleep?: Sleep;
  /** Told of every HTTP attempt and how it ended (metrics): "ok", "auth", "transient"… */
  onRequest?: (operation: string, outcome: string) => void;
}
