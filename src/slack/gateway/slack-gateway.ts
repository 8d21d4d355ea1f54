import type { WebClient } from "@slack/web-api";
import type { Logger } from "pino";
import type { Dispatcher } from "undici";
import {
  type DeliveredState,
  type DiskFullWatch,
  type DownloadLimits,
  installOf,
  type Job,
  type NotePerson,
  type SlackPort,
  type StatusMode,
} from "../../jobs/index.ts";
import type { Segment, SpeakerName } from "../../notetaker/index.ts";
import { optional } from "../../util/optional.ts";
import { localeOf } from "../messages/catalog.ts";
import { splitNote } from "../text/split-note.ts";
import { buildNotePart } from "../views/note-part.ts";
import { createCanvas, editCanvas, findCanvas, shareCanvas } from "./canvas-gateway.ts";
import { downloadSlackFile, SlackDownloadError, type SlackHosts } from "./download-slack-file.ts";
import type { OpenFile } from "./file-sink.ts";
import { ReviewGateway } from "./review-gateway.ts";
import { platformErrorOf, toGatewayError } from "./slack-errors.ts";
import { StatusDrawer } from "./status-drawer.ts";
import { deliveryOf, uploadDocx, uploadTranscript } from "./thread-files.ts";
import { findDelivered } from "./thread-reader.ts";

/** The clients and token of one install (org-wide: of one of its workspaces). */
export interface GatewayClients {
  client: WebClient;
  /** `client` with its calls first in Slack's budget: status changes people wait for. */
  urgentClient?: WebClient | undefined;
  botToken: string | (() => Promise<string>);
}

export interface SlackGatewayOptions {
  /** The clients of a job's install (the caller keeps them). */
  clientsOf: (install: string, teamId: string) => GatewayClients;
  slackHosts: SlackHosts;
  logger: Logger;
  now?: () => number;
  dispatcher?: Dispatcher;
  onError?: (operation: string, error: string) => void;
  diskFull?: DiskFullWatch;
  openDownloadFile?: OpenFile;
}

/**
 * What the job layer needs from Slack, each call with the job's install's clients. Every
 * message posted for a job carries metadata naming it, so a resumed job can read its thread.
 */
export class SlackGateway implements SlackPort {
  readonly #o: SlackGatewayOptions;
  readonly #clientsOf: (job: Job) => GatewayClients;
  readonly #drawer: StatusDrawer;
  /** The canvases the bot made are its files. */
  readonly #botUserIds = new WeakMap<WebClient, Promise<string>>();
  readonly review: ReviewGateway;

  constructor(options: SlackGatewayOptions) {
    this.#o = options;
    this.#clientsOf = (job) => options.clientsOf(installOf(job.origin), job.origin.teamId);
    this.#drawer = new StatusDrawer({
      clientsOf: this.#clientsOf,
      botUserId: (job) => this.#botUser(job),
      now: options.now,
    });
    this.review = new ReviewGateway({
      client: (job) => this.#client(job),
      fail: (e, op) => this.#fail(e, op),
    });
  }

  #client(job: Job): WebClient {
    return this.#clientsOf(job).client;
  }

  #botUser(job: Job): Promise<string> {
    const client = this.#client(job);
    let asked = this.#botUserIds.get(client);
    if (asked === undefined) {
      asked = client.auth.test().then((auth) => String(auth.user_id ?? ""));
      this.#botUserIds.set(client, asked);
      asked.catch(() => this.#botUserIds.delete(client));
    }
    return asked;
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

  /** Runs a Slack call of `operation`, its failure counted and wrapped for the job layer. */
  async #call<T>(operation: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw this.#fail(error, operation);
    }
  }

  async showStatus(
    job: Job,
    mode: StatusMode = "stage",
    latest?: () => Promise<Job | undefined>,
    statusMayExist = job.statusTs === undefined && job.statusPostingAt !== undefined,
  ): Promise<string> {
    return this.#call("status update", () => this.#drawer.show(job, mode, latest, statusMayExist));
  }

  async downloadSource(
    job: Job,
    destPath: string,
    signal: AbortSignal,
    limits: DownloadLimits,
  ): Promise<void> {
    const { botToken } = this.#clientsOf(job);
    try {
      await downloadSlackFile({
        url: job.source.downloadUrl,
        token: typeof botToken === "string" ? botToken : await botToken(),
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
    return this.#call("note post", async () => {
      await this.#client(job).chat.postMessage({
        channel: job.origin.channelId,
        thread_ts: job.origin.threadTs,
        text: part.text,
        blocks: part.blocks,
        metadata: part.metadata,
        unfurl_links: false,
        unfurl_media: false,
      });
    });
  }

  async uploadDocx(job: Job, path: string): Promise<string> {
    return this.#call("DOCX upload", () => uploadDocx(this.#client(job), job, path));
  }

  async uploadTranscript(
    job: Job,
    segments: readonly Segment[],
    speakerMap: readonly SpeakerName[],
  ): Promise<string[]> {
    return this.#call("transcript upload", () =>
      uploadTranscript(this.#client(job), job, segments, speakerMap),
    );
  }

  async createCanvas(job: Job, markdown: string, people: readonly NotePerson[]) {
    return this.#call("canvas create", () =>
      createCanvas(this.#client(job), job, markdown, people),
    );
  }

  async editCanvas(job: Job, canvasId: string, markdown: string, people: readonly NotePerson[]) {
    return this.#call("canvas edit", () =>
      editCanvas(this.#client(job), canvasId, markdown, people),
    );
  }

  async shareCanvas(job: Job, canvasId: string): Promise<string> {
    return this.#call("canvas share", () => shareCanvas(this.#client(job), job, canvasId));
  }

  async findCanvas(job: Job, since: number): Promise<string | undefined> {
    return this.#call("canvas lookup", async () =>
      findCanvas(this.#client(job), await this.#botUser(job), job, since),
    );
  }

  async deleteFile(job: Job, fileId: string): Promise<void> {
    try {
      await this.#client(job).files.delete({ file: fileId });
    } catch (error) {
      const code = platformErrorOf(error);
      if (code === "file_deleted" || code === "file_not_found") return;
      throw this.#fail(error, "file delete");
    }
  }

  async findDelivered(job: Job): Promise<DeliveredState> {
    return this.#call("thread read", () => findDelivered(this.#client(job), job));
  }
}
