import { open } from "node:fs/promises";

/** How far a file being written has come: one writer reports, readers wait for more bytes. */
export class WriteProgress {
  #written = 0;
  #ended: { error?: unknown } | undefined;
  #waiters: (() => void)[] = [];

  get written(): number {
    return this.#written;
  }

  update(bytes: number): void {
    this.#written = bytes;
    this.#wake();
  }

  finish(): void {
    this.#ended = {};
    this.#wake();
  }

  fail(error: unknown): void {
    this.#ended = { error };
    this.#wake();
  }

  /** Resolves once the file holds `bytes` bytes or its writer finished; rejects if it failed. */
  async reach(bytes: number, signal?: AbortSignal): Promise<{ complete: boolean }> {
    for (;;) {
      signal?.throwIfAborted();
      if (this.#ended?.error !== undefined) throw this.#ended.error;
      if (this.#ended !== undefined) return { complete: true };
      if (this.#written >= bytes) return { complete: false };
      await new Promise<void>((resolve) => {
        const done = () => {
          signal?.removeEventListener("abort", done);
          resolve();
        };
        this.#waiters.push(done);
        signal?.addEventListener("abort", done, { once: true });
      });
    }
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }
}

/** Small, so few buffers wait for the GC at a large upload's peak. */
const READ_CHUNK_BYTES = 16 * 1024;

/**
 * Reads a file as it is being written. The last bytes wait until the writer finished with exactly
 * `size`, so the receiver never gets a complete body the download would prove wrong.
 */
export async function* readGrowingFile(
  path: string,
  size: number,
  progress: WriteProgress,
  signal?: AbortSignal,
): AsyncGenerator<Uint8Array> {
  const handle = await open(path, "r");
  try {
    let offset = 0;
    while (offset < size) {
      const last = Math.min(size, offset + READ_CHUNK_BYTES) === size;
      // The last chunk waits for the end of the download; any other for its bytes.
      const { complete } = await progress.reach(
        last ? Number.POSITIVE_INFINITY : offset + 1,
        signal,
      );
      if (complete && progress.written !== size) {
        throw new Error(`The download ended at ${progress.written} bytes, not ${size}.`);
      }
      const available = Math.min(size, progress.written) - offset;
      const buffer = Buffer.allocUnsafe(Math.min(READ_CHUNK_BYTES, available));
      const { bytesRead } = await handle.read(buffer, 0, buffer.byteLength, offset);
      if (bytesRead === 0) throw new Error(`The file ends at ${offset} bytes, before ${size}.`);
      offset += bytesRead;
      yield bytesRead === buffer.byteLength ? buffer : buffer.subarray(0, bytesRead);
    }
  } finally {
    await handle.close();
  }
}
