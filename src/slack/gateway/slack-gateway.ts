import { createReadStream } from "node:fs";
import type { WebClient } from "@slack/web-api";
import type { Logger } from "pino";
import type { Dispatcher } from "undici";
import {
  type DeliveredState,
  type DownloadLimits,
  type Gateway,
  isActive,
  type Job,
  JobStepError,
  type NotePerson,
  type StatusMode,
} from "../../jobs/index.ts";
import type { Dialog, SpeakerMapEntry } from "../../notetaker/index.ts";
import { METADATA_EVENT_TYPE } from "../ids.ts";
import { localeOf } from "../messages/index.ts";
import { splitNote } from "../text/index.ts";
import { buildNotePart, buildStatusMessage, buildStatusMetadata } from "../views/index.ts";
import type { MessageContent } from "../views/message-content.ts";
import { createCanvas, editCanvas, findCanvas, shareCanvas } from "./canvas-gateway.ts";
import { downloadSlackFile, SlackDownloadError, type SlackHosts } from "./download-slack-file.ts";
import { platformErrorOf, toGatewayError } from "./slack-errors.ts";
import { StatusPainter } from "./status-painter.ts";
import { deliveryOf, threadFilename } from "./thread-files.ts";
import { transcriptFilename, uploadTranscript } from "./transcript-upload.ts";

export interface SlackGatewayOptions {
  client: WebClient;
  /** The same as `client`, its calls first in Slack's budget: status changes people wait for. */
  urgentClient?: WebClient;
  botToken: string;
  /** Slack's hosts (`slackHostsOf(SLACK_API_URL)`): file downloads go only there. */
  slackHosts: SlackHosts;
  logger: Logger;
  now?: () => number;
  /** For file downloads (tests pass a MockAgent or nothing). */
  dispatcher?: Dispatcher;
  /** Told of every failed Slack call (metrics): what was being done and Slack's error. */
  onError?: (operation: string, error: string) => void;
}

/**
 * The DOCX's name in the thread: the recording's name, and the delivery number after a
 * Regenerate. `findDelivered` looks for exactly this name in the job's thread.
 */
export function docxFilename(job: Job): string {
  return threadFilename(job, "notes", "docx");
}

/**
 * What the job layer needs from Slack, on `@slack/web-api`. Every message it posts for a job
 * carries metadata naming the job, so a resumed job can read its thread to see what is
 * already there; errors are wrapped in `GatewayError` with a transient flag.
 */
export class SlackGateway implements Gateway {
  readonly #o: SlackGatewayOptions;
  /** Status messages, drawn at Slack's pace, the newest state last. */
  readonly #painter: StatusPainter<{ job: Job; content: MessageContent }>;
  /** The bot's own user id (`auth.test`), once asked: the canvases it made are its files. */
  #botUserId: Promise<string> | undefined;

  constructor(options: SlackGatewayOptions) {
    this.#o = options;
    this.#painter = new StatusPainter(
      ({ job, content }, ts, urgent) => this.#drawStatus(job, content, ts, urgent),
      ({ content }) => content,
    );
  }

  /** Counts a failed Slack call and wraps its error for the job layer. */
  #fail(error: unknown, operation: string) {
    const wrapped = toGatewayError(error, operation);
    this.#o.onError?.(
      operation,
      platformErrorOf(error) ?? (wrapped.transient ? "transient" : "failed"),
    );
    return wrapped;
  }

  /**
   * Draws the job's status message through the painter: only when what it shows changes,
   * the newest state last, a progress figure without waiting for Slack's budget.
   */
  async showStatus(
    job: Job,
    mode: StatusMode = "stage",
    latest?: () => Promise<Job | undefined>,
  ): Promise<string> {
    // Another record of the job than the one drawn: a newer state, saved elsewhere.
    const recheck =
      latest &&
      (async ({ job: drawn }: { job: Job }) => {
        const now = await latest();
        if (now === undefined || (now.updatedAt === drawn.updatedAt && now.stage === drawn.stage)) {
          return undefined;
        }
        if (!isActive(now)) this.#painter.forget(now.id);
        return { job: now, content: this.#contentOf(now) };
      });
    try {
      const ts = await this.#painter.paint(
        job.id,
        job.statusTs,
        { job, content: this.#contentOf(job) },
        mode !== "progress",
        recheck,
      );
      if (!isActive(job)) this.#painter.forget(job.id);
      return ts;
    } catch (error) {
      throw this.#fail(error, "status update");
    }
  }

  #contentOf(job: Job): MessageContent {
    return buildStatusMessage(job, {
      locale: localeOf(job.origin.locale),
      now: (this.#o.now ?? Date.now)(),
    });
  }

  /**
   * Edits the status message at `ts`, or posts it in the thread when there is none; an
   * `urgent` draw (a stage change, a prompt) goes before progress figures in Slack's budget.
   */
  async #drawStatus(
    job: Job,
    content: MessageContent,
    ts: string | undefined,
    urgent: boolean,
  ): Promise<string> {
    const client = urgent ? (this.#o.urgentClient ?? this.#o.client) : this.#o.client;
    const channel = job.origin.channelId;
    if (ts !== undefined) {
      try {
        await client.chat.update({ channel, ts, ...content });
        return ts;
      } catch (error) {
        // The status message was deleted: post a new one rather than lose the buttons.
        if (platformErrorOf(error) !== "message_not_found") throw error;
      }
    }
    const posted = await client.chat.postMessage({
      channel,
      thread_ts: job.origin.threadTs,
      ...content,
      metadata: buildStatusMetadata(job.id, job.source.fileId),
    });
    if (typeof posted.ts !== "string") throw new Error("chat.postMessage returned no ts");
    return posted.ts;
  }

  async downloadSource(
    job: Job,
    destPath: string,
    signal: AbortSignal,
    limits: DownloadLimits,
  ): Promise<void> {
    try {
      await downloadSlackFile({
        url: job.source.downloadUrl,
        token: this.#o.botToken,
        hosts: this.#o.slackHosts,
        destPath,
        maxBytes: limits.maxBytes,
        expectedBytes: job.source.size,
        signal,
        ...(limits.onWritten === undefined ? {} : { onWritten: limits.onWritten }),
        ...(this.#o.dispatcher === undefined ? {} : { dispatcher: this.#o.dispatcher }),
      });
    } catch (error) {
      if (!(error instanceof SlackDownloadError)) throw error;
      this.#o.logger.warn({ jobId: job.id, reason: error.message }, "recording download failed");
      if (error.transient) throw this.#fail(error, "file download");
      throw new JobStepError({ code: "download_failed" }, true, { cause: error });
    }
  }

  /**
   * The note's parts, each a message: links shown with their targets, the note's own
   * mentions inert, and the names of `people` mentioned (outside code and links) before the
   * note is split, so each part is measured as it is posted (`splitNote`).
   */
  splitNote(markdown: string, people: readonly NotePerson[] = []): string[] {
    return splitNote(markdown, people);
  }

  async postNotePart(
    job: Job,
    text: string,
    index: number,
    total: number,
    people: readonly NotePerson[] = [],
  ): Promise<void> {
    const locale = localeOf(job.origin.locale);
    const delivery = deliveryOf(job);
    const part = buildNotePart(text, { index, total, jobId: job.id, delivery, locale, people });
    try {
      await this.#o.client.chat.postMessage({
        channel: job.origin.channelId,
        thread_ts: job.origin.threadTs,
        text: part.text,
        blocks: part.blocks,
        metadata: part.metadata,
        unfurl_links: false,
        unfurl_media: false,
      });
    } catch (error) {
      throw this.#fail(error, "note post");
    }
  }

  async uploadDocx(job: Job, path: string): Promise<string> {
    const filename = docxFilename(job);
    try {
      const result = await this.#o.client.filesUploadV2({
        channel_id: job.origin.channelId,
        thread_ts: job.origin.threadTs,
        file: createReadStream(path),
        filename,
        title: filename,
      });
      const uploads = (result as { files?: { files?: { id?: string }[] }[] }).files;
      const id = uploads?.[0]?.files?.[0]?.id;
      if (id === undefined) throw new Error("files.uploadV2 returned no file id");
      return id;
    } catch (error) {
      throw this.#fail(error, "DOCX upload");
    }
  }

  async uploadTranscript(
    job: Job,
    dialog: Dialog,
    speakerMap: readonly SpeakerMapEntry[],
  ): Promise<string[]> {
    try {
      return await uploadTranscript(this.#o.client, job, dialog, speakerMap);
    } catch (error) {
      throw this.#fail(error, "transcript upload");
    }
  }

  async createCanvas(job: Job, markdown: string, people: readonly NotePerson[]) {
    try {
      return await createCanvas(this.#o.client, job, markdown, people);
    } catch (error) {
      throw this.#fail(error, "canvas create");
    }
  }

  async editCanvas(_job: Job, canvasId: string, markdown: string, people: readonly NotePerson[]) {
    try {
      return await editCanvas(this.#o.client, canvasId, markdown, people);
    } catch (error) {
      throw this.#fail(error, "canvas edit");
    }
  }

  async shareCanvas(job: Job, canvasId: string): Promise<string> {
    try {
      return await shareCanvas(this.#o.client, job, canvasId);
    } catch (error) {
      throw this.#fail(error, "canvas share");
    }
  }

  async findCanvas(job: Job, since: number): Promise<string | undefined> {
    try {
      this.#botUserId ??= this.#o.client.auth.test().then((auth) => String(auth.user_id ?? ""));
      return await findCanvas(this.#o.client, await this.#botUserId, job, since);
    } catch (error) {
      this.#botUserId = undefined;
      throw this.#fail(error, "canvas lookup");
    }
  }

  async deleteFile(fileId: string): Promise<void> {
    try {
      await this.#o.client.files.delete({ file: fileId });
    } catch (error) {
      if (
        platformErrorOf(error) === "file_deleted" ||
        platformErrorOf(error) === "file_not_found"
      ) {
        return;
      }
      throw this.#fail(error, "file delete");
    }
  }

  async findDelivered(job: Job): Promise<DeliveredState> {
    const parts = new Set<number>();
    let docxFileId: string | undefined;
    const transcript = new Map<string, string>();
    const transcriptNames = new Set([
      transcriptFilename(job, "txt"),
      transcriptFilename(job, "vtt"),
    ]);
    const wanted = docxFilename(job);
    try {
      for await (const page of this.#o.client.paginate("conversations.replies", {
        channel: job.origin.channelId,
        ts: job.origin.threadTs,
        include_all_metadata: true,
        limit: 200,
      })) {
        for (const message of (page as { messages?: ThreadMessage[] }).messages ?? []) {
          const part = notePartOf(message, job.id, deliveryOf(job));
          if (part !== undefined) parts.add(part);
          const file = message.files?.find((f) => f.name === wanted || f.title === wanted);
          if (file?.id !== undefined) docxFileId = file.id;
          for (const f of message.files ?? []) {
            if (f.id !== undefined && f.name !== undefined && transcriptNames.has(f.name)) {
              transcript.set(f.name, f.id);
            }
          }
        }
      }
    } catch (error) {
      throw this.#fail(error, "thread read");
    }
    // Both files or none: a transcript half found is uploaded again, whole.
    const transcriptFileIds =
      transcript.size === transcriptNames.size ? [...transcript.values()] : [];
    return { parts: [...parts].sort((a, b) => a - b), docxFileId, transcriptFileIds };
  }
}

interface ThreadMessage {
  metadata?: { event_type?: string; event_payload?: Record<string, unknown> };
  files?: { id?: string; name?: string; title?: string }[];
}

/** The part number of a note part posted for this job's delivery, read from its metadata. */
function notePartOf(message: ThreadMessage, jobId: string, delivery: number): number | undefined {
  const { metadata } = message;
  if (metadata?.event_type !== METADATA_EVENT_TYPE) return undefined;
  const payload = metadata.event_payload ?? {};
  if (payload.job_id !== jobId || payload.kind !== "note_part") return undefined;
  if (payload.delivery !== delivery) return undefined;
  return typeof payload.part === "number" ? payload.part : undefined;
}
