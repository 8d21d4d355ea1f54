import type { Dialog, SpeakerMapEntry } from "../notetaker/index.ts";
import type { Job } from "./job.ts";

/** What of a job's delivery is already in its thread, as Slack shows it. */
export interface DeliveredState {
  /** Indexes (0-based) of the note parts found in the thread. */
  parts: number[];
  /** The DOCX uploaded for this job, if one is there. */
  docxFileId: string | undefined;
  /** The files of this delivery's transcript found in the thread (none when not uploaded). */
  transcriptFileIds: string[];
}

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
export interface Gateway {
  /**
   * Shows the job's state in its status message: posts the message in the thread when
   * `job.statusTs` is unset, edits it otherwise. Resolves with the message's ts.
   */
  showStatus(job: Job): Promise<string>;
  /**
   * Streams the job's source recording from Slack to `destPath`, refusing it past
   * `maxBytes`; `onWritten` hears the file's length after each write reaches the disk.
   */
  downloadSource(job: Job, destPath: string, signal: AbortSignal, o: DownloadLimits): Promise<void>;
  /** Splits a Markdown note into the messages it is posted as. Pure and deterministic. */
  splitNote(markdown: string): string[];
  /**
   * Posts part `index` of `total` in the thread, tagged so `findDelivered` can see it; the
   * names of `people` (speakers named by picking a member) become mentions of them.
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
  /** Deletes a file the bot uploaded (an earlier transcript); one already gone is fine. */
  deleteFile(fileId: string): Promise<void>;
  /** Reads the thread to learn what a crashed run had already delivered. */
  findDelivered(job: Job): Promise<DeliveredState>;
}

/** A Slack call failed; the gateway wraps its errors in this so the runner can say so. */
export class GatewayError extends Error {
  readonly code = "gateway_failed";
  /** False when trying again cannot help (e.g. the bot was removed from the channel). */
  readonly transient: boolean;

  constructor(message: string, options: { transient: boolean; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = this.constructor.name;
    this.transient = options.transient;
  }
}
