import type { NoteTakerClient } from "../notetaker/index.ts";

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
