import { open } from "node:fs/promises";
import { type ReadAt, type Sniffed, sniffRecording, verdictOf } from "../../recordings/index.ts";
import { JobStepError } from "../engine/failure-policy.ts";

export interface RecordingFacts {
  filename: string;
  size: number;
  canPrepare: boolean;
}

/**
 * A file that is not audio or video (`notes.mp3` of text, a playlist
 * behind an ID3 tag), or one the service refuses with no FFmpeg to
 * prepare it, fails the job at once: Retry would bring the same bytes.
 */
export async function checkDownload(
  path: string,
  facts: RecordingFacts,
): Promise<"as_is" | "prepare"> {
  return decide(await sniffFile(path), facts);
}

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

export function sniffFile(path: string): Promise<Sniffed> {
  return sniffRecording(fileReader(path));
}

/** Never more than asked for, fewer at the end. */
export function fileReader(path: string): ReadAt {
  return async (offset, length) => {
    const handle = await open(path, "r");
    try {
      const buffer = new Uint8Array(length);
      let filled = 0;
      // One read may return less than asked for.
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
