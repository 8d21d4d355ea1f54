import { open } from "node:fs/promises";
import {
  audioFormatOf,
  MAX_AUDIO_BYTES,
  SNIFF_BYTES,
  type Sniffed,
  sniffContainer,
} from "../notetaker/index.ts";
import { JobStepError } from "./failure-policy.ts";

/**
 * What happens to a downloaded recording: it goes to the Note Service as it is, byte for
 * byte, or FFmpeg prepares its audio first (a container the service does not take, a name
 * it would refuse, a file over its 300 MB).
 */
export type DownloadVerdict = "as_is" | "prepare";

export interface RecordingFacts {
  /** The name the job knows the recording by. */
  filename: string;
  size: number;
  /** Whether FFmpeg is there to prepare what the service would refuse. */
  canPrepare: boolean;
}

/**
 * Looks at the first bytes of a downloaded recording before the Note Service sees it. A
 * file that is not audio or video (a text file named `notes.mp3`) fails the job at once
 * rather than late at the service; so does audio or video the service does not take when
 * there is no FFmpeg to prepare it. A retry cannot help either: the same bytes would come again.
 */
export async function checkDownload(path: string, facts: RecordingFacts): Promise<DownloadVerdict> {
  return verdictOf(sniffContainer(await readHead(path, SNIFF_BYTES)), facts);
}

/** The verdict on a recording whose first bytes say `sniffed` (see {@link checkDownload}). */
export function verdictOf(sniffed: Sniffed, facts: RecordingFacts): DownloadVerdict {
  if (sniffed.kind === "not_media") throw new JobStepError({ code: "not_audio" }, false);
  const takenAsIs =
    sniffed.kind === "audio" &&
    audioFormatOf(facts.filename) !== undefined &&
    facts.size <= MAX_AUDIO_BYTES;
  if (takenAsIs) return "as_is";
  if (facts.canPrepare) return "prepare";
  if (sniffed.kind === "other_media") {
    throw new JobStepError({ code: "unsupported_container", detail: sniffed.format }, false);
  }
  // Without FFmpeg nothing else gets this far: the start refuses it and the download stops at 300 MB.
  return "as_is";
}

/** The first `bytes` bytes of a file (fewer when it is shorter); never the whole file. */
export async function readHead(path: string, bytes: number): Promise<Uint8Array> {
  const handle = await open(path, "r");
  try {
    const buffer = new Uint8Array(bytes);
    let filled = 0;
    // One read may return less than asked for; read until full or the end of the file.
    while (filled < bytes) {
      const { bytesRead } = await handle.read(buffer, filled, bytes - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}
