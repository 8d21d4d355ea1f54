import { createReadStream } from "node:fs";
import type { WebClient } from "@slack/web-api";
import type { Logger } from "pino";
import type { Dispatcher } from "undici";
import {
  type DeliveredState,
  type DiskFullWatch,
  type DownloadLimits,
  isActive,
  type Job,
  type NotePerson,
  type SlackPort,
  type StatusMode,
} from "../../jobs/index.ts";
import type { Dialog, SpeakerMapEntry } from "../../notetaker/index.ts";
import { optional } from "../../util/optional.ts";
import { localeOf } from "../messages/index.ts";
import { splitNote } from "../text/index.ts";
import { buildNotePart, buildStatusMessage } from "../views/index.ts";
import type { MessageContent } from "../views/message-content.ts";
import { createCanvas, editCanvas, findCanvas, shareCanvas } from "./canvas-gateway.ts";
import { downloadSlackFile, SlackDownloadError, type SlackHosts } from "./download-slack-file.ts";
import type { OpenFile } from "./file-sink.ts";
import { ReviewGateway } from "./review-gateway.ts";
import { platformErrorOf, toGatewayError } from "./slack-errors.ts";
import { StatusDrawer } from "./status-drawer.ts";
import { type Priority, StatusPainter } from "./status-painter.ts";
import { deliveryOf } from "./thread-files.ts";
import { docxFilename, findDelivered } from "./thread-reader.ts";
import { uploadTranscript } from "./transcript-upload.ts";

export { docxFilename } from "./thread-reader.ts";

const PRIORITY: Record<StatusMode, Priority> = {
  progress: "progress",
  stage: "urgent",
  required: "urgent",
  person: "person",
};

export interface SlackGatewayOptions {
  client: WebClient;
  /** `client` with its calls first in Slack's budget: status changes people wait for. */
  urgentClient?: WebClient;
  botToken: string | (() => Promise<string>);
  slackHosts: SlackHosts;
  logger: Logger;
  now?: () => number;
  dispatcher?: Dispatcher;
  onError?: (operation: string, error: string) => void;
  diskFull?: DiskFullWatch;
  openDownloadFile?: OpenFile;
}

/**
 * What the job layer needs from Slack. Every message posted for a job carries metadata naming
 * it, so a resumed job can read its thread to see what is already there.
 */
export class SlackGateway implements SlackPort {
  readonly #o: SlackGatewayOptions;
  readonly #painter: StatusPainter<{ job: Job; content: MessageContent }>;
  readonly #drawer: StatusDrawer;
  /** The canvases the bot made are its files. */
  #botUserId: Promise<string> | undefined;
  readonly review: ReviewGateway;

  constructor(options: SlackGatewayOptions) {
    this.#o = options;
    this.#drawer = new StatusDrawer({
      client: options.client,
      urgentClient: options.urgentClient,
      botUserId: () => this.#botUser(),
    });
    this.review = new ReviewGateway({ client: options.client, fail: (e, op) => this.#fail(e, op) });
    this.#painter = new StatusPainter(
      ({ job, content }, ts, priority, yieldSignal) =>
        this.#drawer.draw(job, content, ts, priority, yieldSignal),
      ({ content }) => content,
    );
  }

  #botUser(): Promise<string> {
    this.#botUserId ??= this.#o.client.auth.test().then((auth) => String(auth.user_id ?? ""));
    this.#botUserId.catch(() => {
      this.#botUserId = undefined;
    });
    return this.#botUserId;
  }

  #fail(error: unknown, operation: string) {
    const wrapped = toGatewayError(error, operation);
    const label =
      error instanceof SlackDownloadError
        ? error.trouble
        : (platformErrorOf(error) ?? (wrapped.transient ? "transient" : "failed"));
    this.#o.onError?.(operation, label);
    return wrapped;
  }

  async showStatus(
    job: Job,
    mode: StatusMode = "stage",
    latest?: () => Promise<Job | undefined>,
    statusMayExist = job.statusTs === undefined && job.statusPostingAt !== undefined,
  ): Promise<string> {
    if (statusMayExist) this.#drawer.mayExist(job.id);
    // A newer state saved elsewhere (another replica) is drawn after this one.
    const recheck =
      latest &&
      (async ({ job: drawn }: { job: Job }) => {
        const now = await latest();
        if (now === undefined || (now.updatedAt === drawn.updatedAt && now.stage === drawn.stage)) {
          return undefined;
        }
        if (!isActive(now)) this.#forget(now.id);
        return { job: now, content: this.#contentOf(now) };
      });
    try {
      const ts = await this.#painter.paint(
        job.id,
        job.statusTs,
        { job, content: this.#contentOf(job) },
        PRIORITY[mode],
        recheck,
      );
      if (!isActive(job)) this.#forget(job.id);
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

  #forget(jobId: string): void {
    this.#painter.forget(jobId);
    this.#drawer.forget(jobId);
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
        token: typeof this.#o.botToken === "string" ? this.#o.botToken : await this.#o.botToken(),
        hosts: this.#o.slackHosts,
        destPath,
        maxBytes: limits.maxBytes,
        expectedBytes: job.source.size,
        signal,
        ...optional("onWritten", limits.onWritten),
        ...optional("dispatcher", this.#o.dispatcher),
        ...optional("openFile", this.#o.openDownloadFile),
      });
      this.#o.diskFull?.markWritten();
    } catch (error) {
      if (!(error instanceof SlackDownloadError)) throw error;
      const { message: reason, trouble } = error;
      this.#o.logger.warn({ jobId: job.id, reason, trouble }, "recording download failed");
      if (trouble === "disk_full") this.#o.diskFull?.markFull();
      throw this.#fail(error, "file download");
    }
  }

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
      return await findCanvas(this.#o.client, await this.#botUser(), job, since);
    } catch (error) {
      throw this.#fail(error, "canvas lookup");
    }
  }

  async deleteFile(_job: Job, fileId: string): Promise<void> {
    try {
      await this.#o.client.files.delete({ file: fileId });
    } catch (error) {
      const code = platformErrorOf(error);
      if (code === "file_deleted" || code === "file_not_found") return;
      throw this.#fail(error, "file delete");
    }
  }

  async findDelivered(job: Job): Promise<DeliveredState> {
    try {
      return await findDelivered(this.#o.client, job);
    } catch (error) {
      throw this.#fail(error, "thread read");
    }
  }
}
