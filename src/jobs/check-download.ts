import { open } from "node:fs/promises";
import { SNIFF_BYTES, sniffContainer } from "../notetaker/index.ts";
import { JobStepError } from "./failure-policy.ts";

/**
 * Looks at the first bytes of a downloaded recording before the Note Service sees it. A
 * file that is not audio or video (a text file named `notes.mp3`) fails the job at once
 * rather than late at the service, and so does audio or video in a container the service
 * does not take. A retry cannot help either: the same bytes would come again.
 */
export async function checkDownload(path: string): Promise<void> {
  const sniffed = sniffContainer(await readHead(path, SNIFF_BYTES));
  if (sniffed.kind === "not_media") throw new JobStepError({ code: "not_audio" }, false);
  if (sniffed.kind === "other_media") {
    throw new JobStepError({ code: "unsupported_container", detail: sniffed.format }, false);
  }
}

/** The first `bytes` bytes of a file (fewer when it is shorter); never the whole file. */
async function readHead(path: string, bytes: number): Promise<Uint8Array> {
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
