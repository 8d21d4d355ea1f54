import { randomUUID } from "node:crypto";
import { buildDialog } from "./dialog.ts";
import type { Knobs } from "./knobs.ts";
import { buildNoteDocx } from "./note-docx.ts";
import { buildNoteMarkdown, type NoteInput } from "./note-markdown.ts";
import type { DialogEntry, SpeakerHint } from "./schemas.ts";
import type { Signer } from "./signing.ts";

export type TaskKind = "audio" | "note";

interface TaskBase {
  id: string;
  createdAt: number;
  polls: number;
  /** Set from `knobs.failNextTasks` at submission: the task ends `failed` with this message. */
  failMessage?: string;
  outcome?: { status: "completed"; result: Record<string, string> } | { status: "failed" };
  /** Guards against two concurrent polls both building the result. */
  finishing?: Promise<void>;
}

export interface AudioTask extends TaskBase {
  kind: "audio";
  hints: SpeakerHint[] | undefined;
  /** The generated dialog, once completed. */
  dialog?: DialogEntry[];
}

export interface NoteTask extends TaskBase {
  kind: "note";
  input: NoteInput;
  /** The DOCX bytes and the expiry (epoch ms) of its link, once completed. */
  docx?: { bytes: Buffer; expires: number };
}

export type Task = AudioTask | NoteTask;

/** Poll answer data, spec 2.1. */
export interface TaskView {
  task_id: string;
  status: string;
  progress?: number | string | null;
  result?: Record<string, string>;
  error?: { message: string };
}

/** Path of the DOCX file on the result origin. */
export function docxPath(id: string): string {
  return `/files/docx/${id}.docx`;
}

/** The origin result links name: the result origin, under `knobs.linkHost` when set. */
export function linkOrigin(resultOrigin: string, knobs: Knobs): string {
  if (knobs.linkHost === undefined) return resultOrigin;
  const url = new URL(resultOrigin);
  url.hostname = knobs.linkHost;
  return url.origin;
}

/** Path of the dialog file on the result origin. */
export function dialogPath(id: string): string {
  return `/files/dialog/${id}.json`;
}

/**
 * Task state. Tasks advance only when polled: each poll counts, and a task finishes on the poll
 * where both the poll count and the elapsed time reach their knobs. Results are built then.
 */
export class TaskStore {
  readonly #tasks = new Map<string, Task>();
  readonly #knobs: Knobs;
  readonly #signer: Signer;
  readonly #resultOrigin: string;
  /** DOCX bytes by Markdown, when `reuseDocx` is on (a few entries at most). */
  readonly #docxByMarkdown: Map<string, Buffer> | undefined;

  constructor(
    knobs: Knobs,
    signer: Signer,
    resultOrigin: string,
    options: { reuseDocx?: boolean } = {},
  ) {
    this.#knobs = knobs;
    this.#signer = signer;
    this.#resultOrigin = resultOrigin;
    this.#docxByMarkdown = options.reuseDocx ? new Map() : undefined;
  }

  /** Registers a submitted audio task, consuming a matching `failNextTasks` entry. */
  addAudio(hints: SpeakerHint[] | undefined, now: number): AudioTask {
    const task: AudioTask = { kind: "audio", hints, ...this.#base("audio", now) };
    this.#tasks.set(task.id, task);
    return task;
  }

  /** Registers a submitted note task, consuming a matching `failNextTasks` entry. */
  addNote(input: NoteInput, now: number): NoteTask {
    const task: NoteTask = { kind: "note", input, ...this.#base("note", now) };
    this.#tasks.set(task.id, task);
    return task;
  }

  /** Finds a task of the given kind; an audio id polled as a note is unknown, and vice versa. */
  get(kind: TaskKind, id: string): Task | undefined {
    const task = this.#tasks.get(id);
    return task?.kind === kind ? task : undefined;
  }

  clear(): void {
    this.#tasks.clear();
  }

  /** Counts a poll, finishes the task when it is due, and returns the poll answer data. */
  async poll(task: Task, now: number): Promise<TaskView> {
    task.polls += 1;
    if (task.outcome === undefined && this.#isDue(task, now)) {
      task.finishing ??= this.#finish(task, now);
      await task.finishing;
    }
    return this.#view(task, now);
  }

  #base(kind: TaskKind, now: number): TaskBase {
    const failures = this.#knobs.failNextTasks;
    const index = failures.findIndex((failure) => failure.kind === kind);
    const base: TaskBase = { id: randomUUID(), createdAt: now, polls: 0 };
    if (index >= 0) {
      base.failMessage = failures[index]?.message ?? "The task failed.";
      failures.splice(index, 1);
    }
    return base;
  }

  #isDue(task: Task, now: number): boolean {
    if (this.#knobs.completeTaskIds.includes(task.id)) return true;
    return (
      task.polls >= this.#knobs.pollsToComplete && now - task.createdAt >= this.#duration(task)
    );
  }

  #duration(task: Task): number {
    return task.kind === "audio" ? this.#knobs.audioDurationMs : this.#knobs.noteDurationMs;
  }

  async #finish(task: Task, now: number): Promise<void> {
    if (task.failMessage !== undefined) {
      task.outcome = { status: "failed" };
      return;
    }
    const knobs = this.#knobs;
    if (task.kind === "audio") {
      task.dialog = buildDialog({
        speakerCount: knobs.speakerCount,
        segmentsPerSpeaker: knobs.segmentsPerSpeaker,
        firstText: knobs.dialogText,
        labels: knobs.labelWithHintNames ? task.hints : undefined,
      });
      const dialogUrl = `${linkOrigin(this.#resultOrigin, knobs)}/r/dialog/${task.id}`;
      task.outcome = { status: "completed", result: { dialog_url: dialogUrl } };
      return;
    }
    const markdown = buildNoteMarkdown({ ...task.input, minChars: knobs.noteMinChars });
    const bytes = this.#docx(markdown);
    // The spec's 24 hours count from completion.
    const expires = knobs.expireDocxLinks ? now - 1 : now + knobs.docxTtlMs;
    task.docx = { bytes, expires };
    const docxUrl =
      knobs.docxUrl ??
      linkOrigin(this.#resultOrigin, knobs) + this.#signer.signPath(docxPath(task.id), expires);
    task.outcome = { status: "completed", result: { markdown, docx_url: docxUrl } };
  }

  #docx(markdown: string): Buffer {
    const cache = this.#docxByMarkdown;
    const cached = cache?.get(markdown);
    if (cached !== undefined) return cached;
    const bytes = buildNoteDocx(markdown);
    if (cache !== undefined) {
      if (cache.size >= 8) cache.clear();
      cache.set(markdown, bytes);
    }
    return bytes;
  }

  #view(task: Task, now: number): TaskView {
    const view: TaskView = { task_id: task.id, status: "queued" };
    if (task.outcome?.status === "completed") {
      view.status = "completed";
      view.result = task.outcome.result;
      return view;
    }
    if (task.outcome?.status === "failed") {
      view.status = "failed";
      view.error = { message: task.failMessage ?? "The task failed." };
      return view;
    }
    const stages = ["queued", ...this.#knobs.extraStatuses, "processing"];
    const stage = Math.min(task.polls - 1, stages.length - 1);
    view.status = stages[stage] ?? "processing";
    // The spec gives progress for audio tasks only, in an unstated form.
    if (task.kind === "audio") {
      const fraction = stage === 0 ? 0 : this.#fraction(task, now);
      const progress = formatProgress(fraction, this.#knobs.progressForm);
      if (progress !== undefined) view.progress = progress;
    }
    return view;
  }

  /** How far the task is, by the slower of its two clocks, kept below 1 while running. */
  #fraction(task: Task, now: number): number {
    const byPolls = this.#knobs.pollsToComplete > 0 ? task.polls / this.#knobs.pollsToComplete : 1;
    const duration = this.#duration(task);
    const byTime = duration > 0 ? (now - task.createdAt) / duration : 1;
    return Math.round(Math.min(0.95, byPolls, byTime) * 100) / 100;
  }
}

function formatProgress(
  fraction: number,
  form: Knobs["progressForm"],
): number | string | null | undefined {
  switch (form) {
    case "fraction":
      return fraction;
    case "percent":
      return Math.round(fraction * 100);
    case "string":
      return `${Math.round(fraction * 100)}%`;
    case "null":
      return null;
    case "absent":
      return undefined;
  }
}
