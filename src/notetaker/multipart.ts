import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { Readable } from "node:stream";
import { FormDataEncoder, type FormDataLike } from "form-data-encoder";
import { safeFileName } from "../text/index.ts";
import { optional } from "../util/optional.ts";

export interface MultipartBody {
  headers: Record<string, string>;
  body: Readable;
}

/**
 * A form-data-encoder file part over a Node stream, which ends cleanly when the server answers
 * before reading it all. Its name is made safe: it goes to a foreign server.
 */
export class FilePart {
  readonly name: string;
  readonly type: string;
  readonly size: number;
  readonly lastModified = Date.now();
  readonly #open: () => AsyncIterable<Uint8Array>;

  constructor(name: string, type: string, size: number, open: () => AsyncIterable<Uint8Array>) {
    this.name = safeFileName(name);
    this.type = type;
    this.size = size;
    this.#open = open;
  }

  stream(): AsyncIterable<Uint8Array> {
    return this.#open();
  }

  get [Symbol.toStringTag]() {
    return "File";
  }
}

/** Small chunks leave less memory waiting for GC on a large upload, at the same speed. */
const READ_CHUNK_BYTES = 16 * 1024;

/** A file on disk, read chunk by chunk while the request is sent. */
export async function diskFile(path: string, name: string, type = "application/octet-stream") {
  const { size } = await stat(path);
  return new FilePart(name, type, size, () =>
    createReadStream(path, { highWaterMark: READ_CHUNK_BYTES }),
  );
}

/** A small file held in memory (dialog.json, a DOCX template). */
export function memoryFile(data: Uint8Array | string, name: string, type: string): FilePart {
  const bytes = typeof data === "string" ? Buffer.from(data) : data;
  return new FilePart(name, type, bytes.byteLength, () => Readable.from([bytes]));
}

type PartValue = string | FilePart;

/** The smallest form form-data-encoder accepts: named parts in order. */
class Parts implements FormDataLike {
  readonly #entries: [string, PartValue][] = [];

  append(name: string, value: unknown): void {
    this.#entries.push([name, value as PartValue]);
  }

  getAll(name: string): PartValue[] {
    return this.#entries.filter(([key]) => key === name).map(([, value]) => value);
  }

  entries(): IterableIterator<[string, PartValue]> {
    return this.#entries[Symbol.iterator]();
  }

  [Symbol.iterator](): IterableIterator<[string, PartValue]> {
    return this.entries();
  }

  get [Symbol.toStringTag]() {
    return "FormData";
  }
}

export function buildForm(fields: Record<string, PartValue | undefined>): FormDataLike {
  const form = new Parts();
  for (const [name, value] of Object.entries(fields)) {
    if (value !== undefined) form.append(name, value);
  }
  return form;
}

/** A streamed `multipart/form-data` body of known length: the recording is never in memory. */
export function encodeMultipart(form: FormDataLike): MultipartBody {
  const encoder = new FormDataEncoder(form);
  const body = Readable.from(encoder.encode());
  return {
    headers: {
      "content-type": encoder.contentType,
      ...optional("content-length", encoder.contentLength),
    },
    body,
  };
}
