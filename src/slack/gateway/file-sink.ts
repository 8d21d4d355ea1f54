import { type FileHandle, open } from "node:fs/promises";
import { Writable } from "node:stream";

export type OpenFile = (path: string) => Promise<Pick<FileHandle, "writev" | "close">>;

export const openForWrite: OpenFile = (path) => open(path, "w", 0o600);

export const WRITE_BUFFER_BYTES = 1024 * 1024;

type Handle = Pick<FileHandle, "writev" | "close">;

/**
 * Writes a stream to a new file (0600: a recording is personal data) with one `writev` per
 * batch, telling its length after each write so the relay's upload can follow without polling.
 */
export function fileSink(
  path: string,
  openFile: OpenFile,
  onWritten: ((bytes: number) => void) | undefined,
): { stream: Writable; readonly failed: boolean } {
  let handle: Handle | undefined;
  let written = 0;
  let failed = false;
  const failing = (callback: (error?: Error | null) => void) => (error: Error) => {
    failed = true;
    callback(error);
  };
  const stream = new Writable({
    highWaterMark: WRITE_BUFFER_BYTES,
    construct(callback) {
      openFile(path).then((opened) => {
        handle = opened;
        callback();
      }, failing(callback));
    },
    writev(chunks, callback) {
      const buffers = chunks.map(({ chunk }) => chunk as Buffer);
      writeAll(handle as Handle, buffers).then((bytes) => {
        written += bytes;
        onWritten?.(written);
        callback();
      }, failing(callback));
    },
    final(callback) {
      (handle as Handle).close().then(() => callback(), failing(callback));
    },
    destroy(error, callback) {
      if (handle === undefined) callback(error);
      else
        handle.close().then(
          () => callback(error),
          () => callback(error),
        );
    },
  });
  return {
    stream,
    get failed() {
      return failed;
    },
  };
}

/** `writev` may write fewer bytes than given. */
async function writeAll(handle: Handle, buffers: Buffer[]): Promise<number> {
  let total = 0;
  let rest = buffers;
  while (rest.length > 0) {
    const { bytesWritten } = await handle.writev(rest);
    total += bytesWritten;
    rest = dropBytes(rest, bytesWritten);
  }
  return total;
}

function dropBytes(buffers: Buffer[], bytes: number): Buffer[] {
  let left = bytes;
  const out: Buffer[] = [];
  for (const buffer of buffers) {
    if (left >= buffer.byteLength) left -= buffer.byteLength;
    else {
      out.push(left === 0 ? buffer : buffer.subarray(left));
      left = 0;
    }
  }
  return out;
}
