import type { NoteTakerClient, Segment, SpeakerName } from "../notetaker/index.ts";
import type { Failure, Job } from "./model/job.ts";
import type { CanvasRefusal, Origin, ReviewPlace, WaitReason } from "./model/job-parts.ts";
import type { KnownJob } from "./persistence/recent-jobs.ts";

/**
 * What the job layer needs from Slack, the Note Service and FFmpeg: interfaces other layers
 * implement and tests fake, named `<what it reaches>Port`.
 */

export interface DeliveredState {
  /** 0-based. */
  parts: number[];
  docxFileId: string | undefined;
  transcriptFileIds: string[];
}

/**
 * `progress` is throttled and never waited for; a failed `required` prompt fails the step; `person`
 * (a command's result) goes first and replaces any older draw.
 */
export type StatusMode = "progress" | "stage" | "required" | "person";

export type CanvasOutcome = { ok: true; canvasId: string } | { ok: false; refused: CanvasRefusal };

export interface NotePerson {
  name: string;
  userId: string;
}

export interface DownloadLimits {
  maxBytes: number;
  onWritten?: (bytes: number) => void;
}

/** Kept here so `src/jobs` stays free of Slack's SDKs. */
export interface SlackPort {
  /**
   * Posts the status message, or edits it once `statusTs` is set; resolves with its ts. A newer
   * state `latest` finds once drawn (another replica moved on) is drawn after. `statusMayExist`: an
   * earlier post of unknown outcome is looked for first.
   */
  showStatus(
    job: Job,
    mode?: StatusMode,
    latest?: () => Promise<Job | undefined>,
    statusMayExist?: boolean,
  ): Promise<string>;
  /** `onWritten` hears the file's length after each write reaches the disk. */
  downloadSource(job: Job, destPath: string, signal: AbortSignal, o: DownloadLimits): Promise<void>;
  /** Each message measured as posted, the names of `people` already mentions. Pure. */
  splitNote(markdown: string, people?: readonly NotePerson[]): string[];
  /** Tagged so `findDelivered` sees it; `people` are the only ones it may mention. */
  postNotePart(
    job: Job,
    text: string,
    index: number,
    total: number,
    people?: readonly NotePerson[],
  ): Promise<void>;
  uploadDocx(job: Job, path: string, signal: AbortSignal): Promise<string>;
  uploadTranscript(
    job: Job,
    segments: readonly Segment[],
    speakerMap: readonly SpeakerName[],
    signal: AbortSignal,
  ): Promise<string[]>;
  /** Or says why the workspace will not have one. */
  createCanvas(job: Job, markdown: string, people: readonly NotePerson[]): Promise<CanvasOutcome>;
  /** `gone` when someone deleted it. */
  editCanvas(
    job: Job,
    canvasId: string,
    markdown: string,
    people: readonly NotePerson[],
  ): Promise<CanvasOutcome | { ok: false; gone: true }>;
  /** Idempotent. */
  shareCanvas(job: Job, canvasId: string): Promise<string>;
  findCanvas(job: Job, since: number): Promise<string | undefined>;
  /** One already gone is fine. */
  deleteFile(job: Job, fileId: string): Promise<void>;
  findDelivered(job: Job): Promise<DeliveredState>;
  review: ReviewPort;
}

export type ReviewState = "coming" | "ready" | "replaced" | "expired";

/**
 * Review before posting, beyond a delivery's calls (those post into the review's thread). A post of
 * unknown outcome is looked for before it is made again.
 */
export interface ReviewPort {
  /**
   * With `since`, first looks for the message an earlier try of unknown outcome may have posted.
   */
  open(job: Job, since?: number): Promise<ReviewPlace>;
  show(job: Job, state: ReviewState): Promise<void>;
  /** A new message, so the person is notified. With `since`, only when it is not there yet. */
  remind(job: Job, since?: number): Promise<void>;
}

export interface SlackPortErrorOptions {
  transient: boolean;
  retryAfterMs?: number | undefined;
  /** Default `slack_failed`, or `slack_unavailable` when tries run out. */
  failure?: Failure["code"] | undefined;
  waiting?: WaitReason | undefined;
  cause?: unknown;
}

/** The gateway wraps Slack's errors in this, so the failure policy can read them. */
export class SlackPortError extends Error {
  readonly code = "gateway_failed";
  /** False when trying again cannot help (the bot was removed from the channel, say). */
  readonly transient: boolean;
  /** Slack's `Retry-After`: no try before it. */
  readonly retryAfterMs: number | undefined;
  readonly failure: Failure["code"] | undefined;
  readonly waiting: WaitReason | undefined;

  constructor(message: string, options: SlackPortErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = this.constructor.name;
    this.transient = options.transient;
    this.retryAfterMs = options.retryAfterMs;
    this.failure = options.failure;
    this.waiting = options.waiting;
  }
}

export type NoteTakerPort = Pick<
  NoteTakerClient,
  | "submitAudio"
  | "relayAudio"
  | "getAudioTask"
  | "fetchDialog"
  | "submitDialog"
  | "getNoteTask"
  | "downloadDocx"
>;

/** Absent when FFmpeg is not installed: such recordings are refused. */
export interface MediaPort {
  /** Slack's own file limit. */
  readonly maxSourceBytes: number;
  /**
   * Reads `input` with the demuxer its bytes were sniffed as;
   * aborting `signal` stops FFmpeg and rejects with its reason.
   */
  prepare(o: {
    input: string;
    demuxer: string;
    output: string;
    signal: AbortSignal;
    onProgress: (fraction: number) => void;
  }): Promise<PrepareOutcome>;
}

/**
 * `timeout` is the admin's limit (minutes), which Retry may beat; the others are what the file is.
 */
export type PrepareOutcome =
  | { ok: true }
  | {
      ok: false;
      reason: "no_sound" | "frame_too_large" | "prepare_failed" | "prepare_too_slow";
    }
  | { ok: false; reason: "too_long"; detail: string }
  | { ok: false; reason: "timeout"; minutes: number };

/** What the Slack side does when the store lost its data. */
export interface StoreResetPort {
  /**
   * Says the job's notes were lost (posting a status message if it had none), tagged so {@link
   * threadHasStatusFor} finds it.
   */
  tellJobLost(job: KnownJob): Promise<void>;
  threadHasStatusFor(origin: Origin, fileId: string): Promise<boolean>;
}
