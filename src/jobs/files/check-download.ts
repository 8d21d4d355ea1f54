import { open } from "node:fs/promises";
import { type ReadAt, type Sniffed, sniffRecording, verdictOf } from "../../recordings/index.ts";
import { JobStepError } from "../engine/failure-policy.ts";

export interface RecordingFacts {
  /** The name the job knows the recording by. */
  filename: string;
  size: number;
  /** Whether FFmpeg is there to prepare what the service would refuse. */
  canPrepare: boolean;
}

/**
 * Looks at the bytes of a downloaded recording before the Note Service or FFmpeg sees
 * them: it goes as it is, or to FFmpeg. A file that is not audio or video (a text file
 * named `notes.mp3`, a playlist behind an ID3 tag) fails the job at once; so does audio or
 * video the service does not take when there is no FFmpeg to prepare it. Retry cannot help
 * either: the same bytes would come again.
 */
export async function checkDownload(
  path: string,
  facts: RecordingFacts,
): Promise<"as_is" | "prepare"> {
  return decide(await sniffFile(path), facts);
}

/** The verdict on a recording whose bytes say `sniffed`, as the job's failure when refused. */
export function decide(sniffed: Sniffed, facts: RecordingFacts): "as_is" | "prepare" {
  const verdict = verdictOf(sniffed, facts);
  if (verdict.verdict !== "refused") return verdict.verdict;
  throw new JobStepError(
    verdict.refusal === "unsupported_container"
      ? { code: verdict.refusal, detail: verdict.format }
      : { code: verdict.refusal },
    false,
  );
}

/** What the file at `path` is, from its bytes (`sniffRecording`). */
export function sniffFile(path: string): Promise<Sniffed> {
  return sniffRecording(fileReader(path));
}

/** Reads a file's bytes at an offset: never more than asked for, fewer at its end. */
export function fileReader(path: string): ReadAt {
  return async (offset, length) => {
    const handle = await open(path, "r");
    try {
      const buffer = new Uint8Array(length);
      let filled = 0;
      // One read may return less than asked for; read until full or the end of the file.
      while (filled < length) {
        const { bytesRead } = await handle.read(buffer, filled, length - filled, offset + filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      return buffer.subarray(0, filled);
    } finally {
      await handle.close();
    }
  };
}
