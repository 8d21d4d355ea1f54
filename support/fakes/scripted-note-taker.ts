import { writeFile } from "node:fs/promises";
import type { NoteTakerPort } from "../../src/jobs/index.ts";
import type { AudioResult, Dialog, NoteResult, Task } from "../../src/notetaker/index.ts";

type Step<R> = Task<R> | Error;

/**
 * A Note Service fake for unit tests: each poll answers the next scripted task state (the
 * last one repeats). It records calls and the clock time of each poll.
 */
export class ScriptedNoteTaker implements NoteTakerPort {
  audioScript: Step<AudioResult>[] = [
    { status: "completed", result: { dialogUrl: "https://r.test/d" } },
  ];
  noteScript: Step<NoteResult>[] = [
    {
      status: "completed",
      result: { markdown: "# Notes\n\n## Part A\nText", docxUrl: "https://r.test/n" },
    },
  ];
  dialog: Dialog = [
    { speaker_id: "speaker_1", start_seconds: 0, end_seconds: 10, text: "Hello everyone." },
    { speaker_id: "speaker_2", start_seconds: 10, end_seconds: 15, text: "Hi, budget first." },
  ];
  docxError: Error | undefined;
  readonly calls = {
    /** Audio submissions of either kind: from disk, or relayed while downloading. */
    submitAudio: 0,
    relayAudio: 0,
    submitDialog: 0,
    audioPolls: [] as number[],
    notePolls: [] as number[],
  };
  readonly submittedDialogs: Parameters<NoteTakerPort["submitDialog"]>[0][] = [];

  /** The names recordings were sent under, relayed or from disk. */
  readonly audioNames: string[] = [];

  async submitAudio(input: Parameters<NoteTakerPort["submitAudio"]>[0]): Promise<string> {
    this.audioNames.push(input.filename);
    this.calls.submitAudio++;
    return `audio-${this.calls.submitAudio}`;
  }

  /** Reads the whole relayed stream, as the service would, before answering. */
  async relayAudio(input: Parameters<NoteTakerPort["relayAudio"]>[0]): Promise<string> {
    let bytes = 0;
    for await (const chunk of input.open()) bytes += chunk.byteLength;
    if (bytes !== input.size) throw new Error(`relayed ${bytes} bytes of ${input.size}`);
    this.audioNames.push(input.filename);
    this.calls.relayAudio++;
    this.calls.submitAudio++;
    return `audio-${this.calls.submitAudio}`;
  }

  async getAudioTask(_taskId: string): Promise<Task<AudioResult>> {
    this.calls.audioPolls.push(Date.now());
    return next(this.audioScript);
  }

  async fetchDialog(): Promise<Dialog> {
    return this.dialog;
  }

  async submitDialog(input: Parameters<NoteTakerPort["submitDialog"]>[0]): Promise<string> {
    this.calls.submitDialog++;
    this.submittedDialogs.push(input);
    return `note-${this.calls.submitDialog}`;
  }

  async getNoteTask(): Promise<Task<NoteResult>> {
    this.calls.notePolls.push(Date.now());
    return next(this.noteScript);
  }

  async downloadDocx(_url: string, destPath: string): Promise<number> {
    if (this.docxError) throw this.docxError;
    await writeFile(destPath, "PK\u0003\u0004fake docx");
    return 14;
  }
}

function next<R>(script: Step<R>[]): Task<R> {
  const step = script.length > 1 ? script.shift() : script[0];
  if (step === undefined) throw new Error("empty script");
  if (step instanceof Error) throw step;
  return step;
}
