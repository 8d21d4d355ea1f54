import type { Dialog, NoteTakerClient, SpeakerMapEntry } from "../notetaker/index.ts";
import type { CanvasRefusal, Failure, Job, Origin, ReviewPlace, WaitReason } from "./model/job.ts";
import type { KnownJob } from "./persistence/recent-jobs.ts";

/**
 * The job layer's ports: what it needs from Slack, the Note Service and FFmpeg, each an
 * interface it defines and another layer implements (`src/slack`, `src/notetaker`,
 * `src/media`); tests hand in fakes. One naming rule: `<what it reaches>Port`.
 */

/** What of a job's delivery is already in its thread, as Slack shows it. */
export interface DeliveredState {
  /** Indexes (0-based) of the note parts found in the thread. */
  parts: number[];
  /** The DOCX uploaded for this job, if one is there. */
  docxFileId: string | undefined;
  /** The files of this delivery's transcript found in the thread (none when not uploaded). */
  transcriptFileIds: string[];
}

/**
 * Why a status message is drawn: a `progress` figure (throttled, never waited for), a
 * `stage` change, a `required` prompt a person must act on (its failure fails the step), or
 * what a `person`'s command did, which they wait for: it goes first, and takes the place of
 * any older state still being drawn.
 */
export type StatusMode = "progress" | "stage" | "required" | "person";

/** What came of asking for a canvas. */
export type CanvasOutcome = { ok: true; canvasId: string } | { ok: false; refused: CanvasRefusal };

/** A speaker named by picking a Slack member: the name the note uses, and who it is. */
export interface NotePerson {
  name: string;
  userId: string;
}

/** How much of a recording may come, and who follows it as it does. */
export interface DownloadLimits {
  maxBytes: number;
  onWritten?: (bytes: number) => void;
}

/**
 * Everything the job layer needs from Slack. `src/slack/gateway` implements it; tests use a
 * recording fake. Keeping this interface here is what keeps `src/jobs` free of Slack SDKs.
 */
export interface SlackPort {
  /**
   * Shows the job's state in its status message: posts the message in the thread when
   * `job.statusTs` is unset, edits it otherwise. Resolves with the message's ts; for a
   * `progress` figure, possibly before Slack has it (a figure lost costs nothing, and a
   * newer state is always drawn after it). `latest` reads the job's record as it is now:
   * asked once the draw is on screen, and a newer state it finds (another replica moved the
   * job on while this draw waited) is drawn after it. `statusMayExist`: with `statusTs`
   * unset, an earlier try to post the message may have reached Slack (its outcome unknown),
   * so the thread is read for it before a message is posted; by default, whenever the record
   * holds the intent (`statusPostingAt`).
   */
  showStatus(
    job: Job,
    mode?: StatusMode,
    latest?: () => Promise<Job | undefined>,
    statusMayExist?: boolean,
  ): Promise<string>;
  /**
   * Streams the job's source recording from Slack to `destPath`, refusing it past
   * `maxBytes`; `onWritten` hears the file's length after each write reaches the disk.
   */
  downloadSource(job: Job, destPath: string, signal: AbortSignal, o: DownloadLimits): Promise<void>;
  /**
   * Splits a Markdown note into the messages it is posted as, the names of `people`
   * (speakers named by picking a member) already mentions of them, so that each message is
   * measured as posted. Pure and deterministic.
   */
  splitNote(markdown: string, people?: readonly NotePerson[]): string[];
  /**
   * Posts part `index` of `total` (from `splitNote`) in the thread, tagged so
   * `findDelivered` can see it; `people` are the only ones it may mention.
   */
  postNotePart(
    job: Job,
    text: string,
    index: number,
    total: number,
    people?: readonly NotePerson[],
  ): Promise<void>;
  /** Uploads the note's DOCX into the thread; resolves with the Slack file id. */
  uploadDocx(job: Job, path: string, signal: AbortSignal): Promise<string>;
  /**
   * Uploads the speaker-named transcript (`.txt` and `.vtt`) of `dialog`, with the names of
   * `speakerMap`, into the thread; resolves with the Slack file ids.
   */
  uploadTranscript(
    job: Job,
    dialog: Dialog,
    speakerMap: readonly SpeakerMapEntry[],
    signal: AbortSignal,
  ): Promise<string[]>;
  /**
   * Makes the note's canvas (title: the recording and its date) from its Markdown, the
   * names of `people` as mentions; or says why the workspace will not have one.
   */
  createCanvas(job: Job, markdown: string, people: readonly NotePerson[]): Promise<CanvasOutcome>;
  /** Replaces the canvas's content (a Regenerate); `gone` when someone deleted it. */
  editCanvas(
    job: Job,
    canvasId: string,
    markdown: string,
    people: readonly NotePerson[],
  ): Promise<CanvasOutcome | { ok: false; gone: true }>;
  /** Lets the job's channel read the canvas; resolves with its link. Idempotent. */
  shareCanvas(job: Job, canvasId: string): Promise<string>;
  /** The canvas a crashed run made for this job since `since` (ms), if Slack has one. */
  findCanvas(job: Job, since: number): Promise<string | undefined>;
  /**
   * Deletes a file the bot uploaded for the job (an earlier transcript); one already gone is
   * fine.
   */
  deleteFile(job: Job, fileId: string): Promise<void>;
  /** Reads the thread to learn what a crashed run had already delivered. */
  findDelivered(job: Job): Promise<DeliveredState>;
  /** Review before posting: the note, privately, in a direct message with its starter. */
  review: ReviewPort;
}

/** Where a review stands, as its first message in the direct message says it. */
export type ReviewState = "coming" | "ready" | "replaced" | "expired";

/**
 * What review before posting needs of Slack beyond the calls of a delivery (the note's
 * parts, DOCX and transcript go into the review's thread through those, the job placed
 * there). Idempotent where it can be; a post whose outcome an earlier try left unknown is
 * looked for before it is made again.
 */
export interface ReviewPort {
  /**
   * Posts the review's first message in the bot's direct message with the job's starter.
   * With `since` (ms: an earlier try, whose outcome is unknown, began then), first looks
   * there for the message that try may have posted. Resolves with where it is.
   */
  open(job: Job, since?: number): Promise<ReviewPlace>;
  /** Edits the review's first message (`job.review`) to say where the review stands. */
  show(job: Job, state: ReviewState): Promise<void>;
  /**
   * Tells the person, in a new message of the direct message (so they are notified), that
   * the note expires in a day. With `since`, only when that message is not there yet.
   */
  remind(job: Job, since?: number): Promise<void>;
}

export interface SlackPortErrorOptions {
  transient: boolean;
  retryAfterMs?: number | undefined;
  /** What the job fails with when this is final (default `slack_failed`, `slack_unavailable`). */
  failure?: Failure["code"] | undefined;
  /** Why the job waits while it is transient, when the status message can say it. */
  waiting?: WaitReason | undefined;
  cause?: unknown;
}

/** A Slack call failed; the gateway wraps its errors in this so the runner can say so. */
export class SlackPortError extends Error {
  readonly code = "gateway_failed";
  /** False when trying again cannot help (e.g. the bot was removed from the channel). */
  readonly transient: boolean;
  /** Slack's `Retry-After` when it rate-limited the call: no try again before it. */
  readonly retryAfterMs: number | undefined;
  /**
   * The failure this becomes when trying again cannot help or the tries run out; undefined
   * for a Web API call (`slack_failed` when refused, `slack_unavailable` when tries ran out).
   */
  readonly failure: Failure["code"] | undefined;
  /** Why the job waits before trying again, for its status message (a download's trouble). */
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

/** The calls the job layer makes to the Note Service; tests hand in a scripted fake. */
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

/**
 * What the job layer needs to prepare a recording the Note Service would refuse as it is
 * (`src/media` implements it with FFmpeg). Absent from the step context when FFmpeg is not
 * installed: such recordings are then refused as before.
 */
export interface MediaPort {
  /** The largest recording downloaded to be prepared (Slack's own file limit). */
  readonly maxSourceBytes: number;
  /**
   * Extracts the speech of `input` into `output` (Ogg Opus), once an FFmpeg slot is free,
   * reading `input` with the one demuxer its bytes were sniffed as. Aborting `signal` stops
   * FFmpeg at once; it rejects with the signal's reason.
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
 * How a preparation ended: done, or refused for what the file is (no sound, longer than
 * the limit in hours, frames no meeting has, unreadable, far slower to read than its
 * length allows), or stopped at the admin's time limit (in minutes), which Retry may beat.
 */
export type PrepareOutcome =
  | { ok: true }
  | {
      ok: false;
      reason: "no_sound" | "frame_too_large" | "prepare_failed" | "prepare_too_slow";
    }
  | { ok: false; reason: "too_long"; detail: string }
  | { ok: false; reason: "timeout"; minutes: number };

/**
 * What the Slack side does when the store lost its data. Implemented in `src/slack`; the job
 * layer only calls it.
 */
export interface StoreResetPort {
  /**
   * Makes the job's status message say, in one sentence, that its notes were lost and the
   * recording must be uploaded again (posts that message in the thread when the job had
   * none), tagged as the job's status for its file so {@link threadHasStatusFor} finds it.
   */
  tellJobLost(job: KnownJob): Promise<void>;
  /** Whether the thread of `origin` holds the bot's status message for the file `fileId`. */
  threadHasStatusFor(origin: Origin, fileId: string): Promise<boolean>;
}
