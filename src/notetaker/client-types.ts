import type { Progress } from "./progress.ts";
import type { Dialog, SpeakerHint, SpeakerMapInput } from "./schemas.ts";

/** A remote task as a poll sees it: still running (with progress), done, or failed. */
export type Task<Result> =
  | { status: "running"; rawStatus: string; progress: Progress | null }
  | { status: "completed"; result: Result }
  | { status: "failed"; message: string };

export interface SubmitAudioInput {
  path: string;
  filename: string;
  speakers?: readonly SpeakerHint[];
  contextText?: string;
  languageHint?: string;
}

/** A recording still arriving: `open` streams exactly `size` bytes, each time it is called. */
export interface RelayAudioInput extends Omit<SubmitAudioInput, "path"> {
  size: number;
  open: () => AsyncIterable<Uint8Array>;
}

export interface SubmitDialogInput {
  dialog: Dialog;
  speakerMap?: SpeakerMapInput;
  contextText?: string;
  template?: { filename: string; data: Uint8Array };
}
