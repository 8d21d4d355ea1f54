import { randomUUID } from "node:crypto";
import { rename, rm } from "node:fs/promises";
import type { FormDataLike } from "form-data-encoder";
import { type Logger, pino } from "pino";
import { type Dispatcher, getGlobalDispatcher } from "undici";
import type { z } from "zod";
import { type ApiTarget, callApi, parseJsonOrUndefined } from "./api-call.ts";
import { NoteTakerProtocolError, outcomeOf } from "./errors.ts";
import {
  audioForm,
  dialogForm,
  encodeMultipart,
  type FormMaker,
  type RelayAudioInput,
  relayForm,
  type SubmitAudioInput,
  type SubmitDialogInput,
} from "./multipart.ts";
import { normalizeProgress, type Progress } from "./progress.ts";
import {
  createResultLinkGuard,
  type ResultLinkGuard,
  type ResultLinkOptions,
} from "./result-link-guard.ts";
import { readDialogLink, saveDocxLink } from "./result-links.ts";
import {
  defaultRetryPolicy,
  type RetryContext,
  type RetryPolicy,
  realSleep,
  type Sleep,
  withRetries,
} from "./retry-policy.ts";
import {
  type AudioResult,
  audioResultSchema,
  type Dialog,
  dialogSchema,
  type NoteResult,
  noteResultSchema,
  pollResponseSchema,
  submitResponseSchema,
} from "./schemas.ts";

const MIB = 1024 * 1024;
// Parsed and held in memory: the cap bounds one job's memory and still holds tens of hours.
const DEFAULT_MAX_DIALOG_BYTES = 20 * MIB;
// The template (at most 10 MB) plus the note's text: a runaway link must not fill the disk.
const DEFAULT_MAX_DOCX_BYTES = 25 * MIB;
/** A remote task as a poll sees it: still running (with progress), done, or failed. */
export type Task<Result> =
  | { status: "running"; rawStatus: string; progress: Progress | null }
  | { status: "completed"; result: Result }
  | { status: "failed"; message: string };

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

const NO_REASON = "The Note Service reported a failure without giving a reason.";

/** Typed client of the Note Service API (docs/note-service.md). Result links get no credential. */
export class NoteTakerClient {
  readonly #baseUrl: string;
  readonly #api: ApiTarget;
  readonly #links: ResultLinkGuard;
  readonly #retry: RetryContext;
  readonly #timeoutMs: number;
  readonly #uploadTimeoutMs: number;
  readonly #maxDialogBytes: number;
  readonly #maxDocxBytes: number;
  readonly #onRequest: ((operation: string, outcome: string) => void) | undefined;

  constructor(options: NoteTakerClientOptions) {
    this.#baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.#api = {
      baseUrl: this.#baseUrl,
      apiKey: options.apiKey,
      dispatcher: options.dispatcher ?? getGlobalDispatcher(),
    };
    this.#links = createResultLinkGuard(
      this.#baseUrl,
      options.resultLinks ?? {},
      options.dispatcher,
    );
    this.#retry = {
      policy: options.retryPolicy ?? defaultRetryPolicy,
      logger: (options.logger ?? pino({ level: "silent" })).child({ name: "notetaker" }),
      sleep: options.sleep ?? realSleep,
    };
    this.#timeoutMs = options.requestTimeoutMs ?? 30_000;
    this.#uploadTimeoutMs = options.uploadTimeoutMs ?? 15 * 60_000;
    this.#maxDialogBytes = options.maxDialogBytes ?? DEFAULT_MAX_DIALOG_BYTES;
    this.#maxDocxBytes = options.maxDocxBytes ?? DEFAULT_MAX_DOCX_BYTES;
    this.#onRequest = options.onRequest;
  }

  async #observed<T>(operation: string, attempt: () => Promise<T>): Promise<T> {
    try {
      const result = await attempt();
      this.#onRequest?.(operation, "ok");
      return result;
    } catch (error) {
      this.#onRequest?.(operation, outcomeOf(error));
      throw error;
    }
  }

  /** `POST /audio2dialog`; resolves to the task id. */
  async submitAudio(input: SubmitAudioInput, signal?: AbortSignal): Promise<string> {
    return this.#submit("/audio2dialog", await audioForm(input), this.#uploadTimeoutMs, signal);
  }

  /**
   * A recording still arriving (the relay of a download), in one attempt: on a failure the
   * caller sends the finished download with `submitAudio`.
   */
  relayAudio(input: RelayAudioInput, signal?: AbortSignal): Promise<string> {
    return this.#post("/audio2dialog", relayForm(input), this.#uploadTimeoutMs, signal);
  }

  /** `POST /dialog2meeting`; resolves to the task id. */
  async submitDialog(input: SubmitDialogInput, signal?: AbortSignal): Promise<string> {
    return this.#submit("/dialog2meeting", dialogForm(input), this.#timeoutMs, signal);
  }

  /** Polls a transcription task (`GET /audio2dialog/<task_id>`). */
  getAudioTask(taskId: string, signal?: AbortSignal): Promise<Task<AudioResult>> {
    return this.#poll("/audio2dialog", taskId, audioResultSchema, signal);
  }

  /** Polls a note task (`GET /dialog2meeting/<task_id>`). */
  getNoteTask(taskId: string, signal?: AbortSignal): Promise<Task<NoteResult>> {
    return this.#poll("/dialog2meeting", taskId, noteResultSchema, signal);
  }

  /** Downloads and validates the dialog file of a completed transcription (`result.dialog_url`). */
  async fetchDialog(url: string, signal?: AbortSignal): Promise<Dialog> {
    const options = { timeoutMs: this.#timeoutMs, maxBytes: this.#maxDialogBytes, signal };
    const text = await withRetries("fetch dialog", this.#retry, signal, () =>
      this.#observed("GET dialog", () => readDialogLink(this.#links, url, options)),
    );
    const parsed = dialogSchema.safeParse(parseJsonOrUndefined(text));
    if (!parsed.success) {
      throw new NoteTakerProtocolError("The dialog file is not a valid dialog array.", {
        cause: parsed.error,
      });
    }
    return parsed.data;
  }

  /** Streams the note's DOCX to `destPath`; resolves to its size. */
  async downloadDocx(url: string, destPath: string, signal?: AbortSignal): Promise<number> {
    const partPath = `${destPath}.${randomUUID()}.part`;
    const options = { timeoutMs: this.#timeoutMs, maxBytes: this.#maxDocxBytes, signal };
    try {
      const bytes = await withRetries("download docx", this.#retry, signal, () =>
        this.#observed("GET docx", () => saveDocxLink(this.#links, url, partPath, options)),
      );
      await rename(partPath, destPath);
      return bytes;
    } finally {
      await rm(partPath, { force: true });
    }
  }

  #submit(
    path: string,
    makeForm: FormMaker,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<string> {
    return withRetries(`POST ${path}`, this.#retry, signal, async () =>
      this.#post(path, await makeForm(), timeoutMs, signal),
    );
  }

  /** One POST of a submission's form; resolves to the task id. */
  async #post(
    path: string,
    form: FormDataLike,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<string> {
    const { headers, body } = encodeMultipart(form);
    const envelope = await this.#observed(`POST ${path.slice(1)}`, () =>
      callApi(this.#api, "POST", path, submitResponseSchema, { headers, body, timeoutMs, signal }),
    );
    return envelope.data.task_id;
  }

  async #poll<R>(
    path: string,
    taskId: string,
    resultSchema: z.ZodType<R>,
    signal: AbortSignal | undefined,
  ): Promise<Task<R>> {
    if (taskId.trim() === "") throw new NoteTakerProtocolError("A task id must not be empty.");
    const url = `${path}/${encodeURIComponent(taskId)}`;
    const { data } = await withRetries(`GET ${path}`, this.#retry, signal, () =>
      this.#observed(`GET ${path.slice(1)}`, () =>
        callApi(this.#api, "GET", url, pollResponseSchema, { timeoutMs: this.#timeoutMs, signal }),
      ),
    );
    if (data.status === "failed") {
      return { status: "failed", message: data.error?.message?.trim() || NO_REASON };
    }
    if (data.status !== "completed") {
      return {
        status: "running",
        rawStatus: data.status,
        progress: normalizeProgress(data.progress),
      };
    }
    const result = resultSchema.safeParse(data.result);
    if (!result.success) {
      throw new NoteTakerProtocolError(`The completed task ${taskId} has no usable result.`, {
        cause: result.error,
      });
    }
    return { status: "completed", result: result.data };
  }
}
