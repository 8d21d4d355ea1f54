import { appendFileSync, copyFileSync, existsSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import type {
  CanvasOutcome,
  CanvasRefusal,
  DeliveredState,
  DownloadLimits,
  Job,
  NotePerson,
  ReviewPlace,
  ReviewPort,
  ReviewState,
  SlackPort,
} from "../../src/jobs/index.ts";
import type { Segment, SpeakerName } from "../../src/notetaker/index.ts";
import { buildTranscript } from "../../src/slack/views/transcript.ts";

/** One thing the fake gateway did, as Slack would have seen it. */
export type GatewayRecord =
  | { op: "status"; jobId: string; stage: string; ts: string; detail?: string }
  | { op: "part"; jobId: string; index: number; total: number; text: string; channel?: string }
  | { op: "docx"; jobId: string; fileId: string; bytes: number; channel?: string }
  | {
      op: "transcript";
      jobId: string;
      channel?: string;
      delivery: number;
      fileIds: string[];
      /** The `.txt` file's lines. */
      lines: string[];
    }
  | { op: "delete"; jobId: string; fileId: string }
  | { op: "canvas"; jobId: string; canvasId: string; delivery: number; markdown: string }
  | { op: "canvas_edit"; jobId: string; canvasId: string; delivery: number; markdown: string }
  | { op: "canvas_share"; jobId: string; canvasId: string }
  | { op: "download"; jobId: string }
  /** Review before posting: its first message posted or edited, the reminder. */
  | { op: "review"; jobId: string; what: ReviewState | "open" | "remind"; channel: string };

export interface RecordingGatewayOptions {
  /** Local file copied as every job's "Slack file" download. */
  sourcePath: string;
  /**
   * Append every record to this JSONL file (synchronously, so a kill -9 right after a
   * call still leaves the record — as a real Slack post would remain).
   */
  journalPath?: string;
  /** Called after each record is written: crash tests kill the process here. */
  afterRecord?: (record: GatewayRecord) => void;
  /** Delay of each download, to catch a job in `downloading`. */
  downloadDelayMs?: number;
  /** The workspace refuses canvases for this reason. */
  canvasRefusal?: CanvasRefusal;
  /** The longest note part; default {@link FAKE_PART_CHARS}. */
  partChars?: number;
}

/**
 * The fake's longest note part: the emulator's notes (about 1,000 characters) come in
 * several parts, as a long note does in production (11,500 characters a part), so that a
 * crash or a takeover between two parts can be tested.
 */
export const FAKE_PART_CHARS = 300;

type SplitNote = typeof import("../../src/slack/text/split-note.ts").splitNote;
let splitNote: SplitNote | undefined;

/**
 * The production `splitNote`, loaded on first use: the benchmarks that drive jobs through
 * this fake and never deliver a note (many-jobs, restart) measure the job layer's memory
 * and start-up, which the Markdown parser behind the splitter is no part of.
 */
function productionSplitter(): SplitNote {
  const require = createRequire(import.meta.url);
  splitNote ??= (require("../../src/slack/text/split-note.ts") as { splitNote: SplitNote })
    .splitNote;
  return splitNote;
}

const deliveryOf = (job: Job) => ("delivery" in job ? job.delivery : 1);

/**
 * A fake of everything the job layer asks of Slack. It records what it was asked to do and
 * answers `findDelivered` from those records, the way the real gateway reads the thread.
 */
export class RecordingGateway implements SlackPort {
  readonly records: GatewayRecord[] = [];
  readonly #o: RecordingGatewayOptions;
  #ts = 0;

  constructor(options: RecordingGatewayOptions) {
    this.#o = options;
    if (options.journalPath !== undefined && existsSync(options.journalPath)) {
      const lines = readFileSync(options.journalPath, "utf8").split("\n").filter(Boolean);
      this.records.push(...lines.map((line) => JSON.parse(line) as GatewayRecord));
      this.#ts = this.records.length;
    }
  }

  async showStatus(job: Job): Promise<string> {
    const ts = job.statusTs ?? `1700000000.${String(++this.#ts).padStart(6, "0")}`;
    const detail = job.stage === "failed" ? job.failure.code : undefined;
    this.#record({
      op: "status",
      jobId: job.id,
      stage: job.stage,
      ts,
      ...(detail ? { detail } : {}),
    });
    return ts;
  }

  async downloadSource(
    job: Job,
    destPath: string,
    signal: AbortSignal,
    limits: DownloadLimits,
  ): Promise<void> {
    if (this.#o.downloadDelayMs) await delay(this.#o.downloadDelayMs, signal);
    copyFileSync(this.#o.sourcePath, destPath);
    limits.onWritten?.(statSync(destPath).size);
    this.#record({ op: "download", jobId: job.id });
  }

  /** The production splitter, in parts of `partChars` ({@link FAKE_PART_CHARS}). */
  splitNote(markdown: string, people: readonly NotePerson[] = []): string[] {
    return productionSplitter()(markdown, people, {
      maxChars: this.#o.partChars ?? FAKE_PART_CHARS,
    });
  }

  async postNotePart(job: Job, text: string, index: number, total: number): Promise<void> {
    this.#record({ op: "part", jobId: job.id, index, total, text, ...placeOf(job) });
  }

  async uploadDocx(job: Job, path: string): Promise<string> {
    const fileId = `F${job.id.slice(0, 8)}${this.records.length}`;
    const bytes = statSync(path).size;
    this.#record({ op: "docx", jobId: job.id, fileId, bytes, ...placeOf(job) });
    return fileId;
  }

  async uploadTranscript(
    job: Job,
    segments: readonly Segment[],
    speakerMap: readonly SpeakerName[],
  ): Promise<string[]> {
    const [txt] = buildTranscript(segments, speakerMap, "en");
    const n = this.records.length;
    const fileIds = [`FT${job.id.slice(0, 8)}${n}a`, `FT${job.id.slice(0, 8)}${n}b`];
    const delivery = "delivery" in job ? job.delivery : 1;
    const lines = (txt?.content ?? "").trim().split("\n");
    this.#record({ op: "transcript", jobId: job.id, delivery, fileIds, lines, ...placeOf(job) });
    return fileIds;
  }

  async createCanvas(job: Job, markdown: string): Promise<CanvasOutcome> {
    if (this.#o.canvasRefusal !== undefined) return { ok: false, refused: this.#o.canvasRefusal };
    const canvasId = `FC${job.id.slice(0, 8)}${this.records.length}`;
    this.#record({ op: "canvas", jobId: job.id, canvasId, delivery: deliveryOf(job), markdown });
    return { ok: true, canvasId };
  }

  async editCanvas(job: Job, canvasId: string, markdown: string): Promise<CanvasOutcome> {
    this.#record({
      op: "canvas_edit",
      jobId: job.id,
      canvasId,
      delivery: deliveryOf(job),
      markdown,
    });
    return { ok: true, canvasId };
  }

  async shareCanvas(job: Job, canvasId: string): Promise<string> {
    this.#record({ op: "canvas_share", jobId: job.id, canvasId });
    return `https://slack.test/docs/T1/${canvasId}`;
  }

  /** The canvas a crashed run made: the journal is the workspace's files. */
  async findCanvas(job: Job): Promise<string | undefined> {
    const made = this.records.find((r) => r.op === "canvas" && r.jobId === job.id);
    return made?.op === "canvas" ? made.canvasId : undefined;
  }

  async deleteFile(_job: Job, fileId: string): Promise<void> {
    const owner = this.records.find((r) => r.op === "transcript" && r.fileIds.includes(fileId));
    this.#record({ op: "delete", jobId: owner?.jobId ?? "?", fileId });
  }

  /**
   * Review before posting: the direct message is `D` and the person's id; what goes into
   * the review's thread is recorded with that channel, as its first message's changes are.
   */
  readonly review: ReviewPort = {
    open: async (job): Promise<ReviewPlace> => {
      const channel = `D${job.origin.userId.slice(1)}`;
      this.#record({ op: "review", jobId: job.id, what: "open", channel });
      return { channelId: channel, ts: `1700000001.${String(++this.#ts).padStart(6, "0")}` };
    },
    show: async (job, state) => {
      const channel = job.review?.channelId ?? "?";
      this.#record({ op: "review", jobId: job.id, what: state, channel });
    },
    remind: async (job, since) => {
      const channel = job.review?.channelId ?? "?";
      const mine = this.of(job.id, "review");
      if (since !== undefined && mine.some((r) => r.what === "remind")) return;
      this.#record({ op: "review", jobId: job.id, what: "remind", channel });
    },
  };

  async findDelivered(job: Job): Promise<DeliveredState> {
    const here = (r: GatewayRecord) =>
      !("channel" in r) || r.channel === undefined || r.channel === job.origin.channelId;
    const mine = this.records.filter((r) => r.jobId === job.id && here(r));
    const parts = mine.flatMap((r) => (r.op === "part" ? [r.index] : []));
    const docx = mine.find((r) => r.op === "docx");
    const delivery = "delivery" in job ? job.delivery : 1;
    const transcript = mine.find((r) => r.op === "transcript" && r.delivery === delivery);
    return {
      parts,
      docxFileId: docx?.op === "docx" ? docx.fileId : undefined,
      transcriptFileIds: transcript?.op === "transcript" ? transcript.fileIds : [],
    };
  }

  /** Records of one kind for one job. */
  of<Op extends GatewayRecord["op"]>(jobId: string, op: Op): Extract<GatewayRecord, { op: Op }>[] {
    return this.records.filter(
      (r): r is Extract<GatewayRecord, { op: Op }> => r.jobId === jobId && r.op === op,
    );
  }

  #record(record: GatewayRecord): void {
    this.records.push(record);
    if (this.#o.journalPath !== undefined) {
      appendFileSync(this.#o.journalPath, `${JSON.stringify(record)}\n`);
    }
    this.#o.afterRecord?.(record);
  }
}

/** Where a post goes, when it is not the job's own thread (a review's, in a direct message). */
function placeOf(job: Job): { channel?: string } {
  return job.origin.channelId.startsWith("D") && job.review !== undefined
    ? { channel: job.origin.channelId }
    : {};
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });
}
