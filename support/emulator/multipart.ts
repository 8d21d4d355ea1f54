import { createHash, randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import type { IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Readable, Transform, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import busboy from "busboy";
import { ApiError } from "./api-error.ts";

export interface FilePartRule {
  /** `disk` streams to a temp file and keeps only size and hash; `memory` keeps the bytes. */
  store: "disk" | "memory";
  maxBytes: number;
  /** Sentence for the 413 answer when the part is larger than `maxBytes`. */
  tooLarge: string;
  /** Checked when the part's headers arrive, before any byte is stored. */
  check?: (info: busboy.FileInfo) => ApiError | undefined;
  /** `disk` parts: kept in this folder (named by a random id) instead of deleted once read. */
  keepIn?: string | undefined;
}

export interface ReceivedFile {
  filename: string | undefined;
  contentType: string;
  bytes: number;
  sha256: string;
  /** Only for `memory` parts. */
  buffer?: Buffer;
  /** Only for `disk` parts with `keepIn`: where the bytes are. */
  keptPath?: string;
}

export interface MultipartForm {
  /** Text fields, first value wins. */
  fields: Map<string, string>;
  files: Map<string, ReceivedFile>;
}

export interface MultipartOptions {
  files: Record<string, FilePartRule>;
  /** Names that must arrive as text fields; sending them as files is refused. */
  textFields: readonly string[];
  maxFieldBytes: number;
}

class Overflow extends Error {}

/**
 * Reads a `multipart/form-data` request with busboy without ever holding a large file in
 * memory. Refusals found along the way (bad extension, bad field) are answered only after the
 * body was read to the end; an oversized file or a malformed body is refused at once and the
 * rest of the body is thrown away unparsed.
 */
export function readMultipart(
  req: IncomingMessage,
  options: MultipartOptions,
): Promise<MultipartForm> {
  return new Promise((resolve, reject) => {
    const form: MultipartForm = { fields: new Map(), files: new Map() };
    const pending: Promise<void>[] = [];
    const claimed = new Set<string>();
    let refusal: ApiError | undefined;
    let settled = false;

    const settle = (error?: ApiError): void => {
      if (settled) return;
      settled = true;
      if (error) reject(error);
      else resolve(form);
    };
    const refuse = (error: ApiError): void => {
      refusal ??= error;
    };

    let parser: busboy.Busboy;
    try {
      const largest = Math.max(0, ...Object.values(options.files).map((rule) => rule.maxBytes));
      parser = busboy({
        headers: req.headers,
        limits: {
          // One byte over the largest limit, so an overflow is seen instead of silently cut.
          fileSize: largest + 1,
          fieldSize: options.maxFieldBytes,
          files: 10,
          fields: 50,
          parts: 60,
        },
      });
    } catch {
      drainThen(req, () =>
        settle(new ApiError(415, "The request body must be multipart/form-data.")),
      );
      return;
    }

    // Stop parsing and storing: the answer goes out now. (A file stream that failed mid-way
    // also leaves busboy unable to finish, so there is no going on.) The rest of the body is
    // thrown away unparsed rather than left unread: closing the connection under a client that
    // is still sending makes it see EPIPE/ECONNRESET instead of the 413.
    const abort = (error: ApiError): void => {
      req.unpipe(parser);
      parser.destroy();
      discardRest(req);
      settle(error);
    };

    parser.on("file", (name, stream, info) => {
      const rule = options.files[name];
      if (rule === undefined) {
        if (options.textFields.includes(name)) {
          refuse(new ApiError(400, `The ${name} part must be a text field, not a file.`));
        }
        stream.resume();
        return;
      }
      // Once the request is refused, or for a repeated part, bytes are only counted and dropped.
      const problem = claimed.has(name) ? undefined : rule.check?.(info);
      if (problem) refuse(problem);
      if (problem || refusal || claimed.has(name)) {
        pending.push(receive(stream, { ...rule, store: "discard" }).then(noop, noop));
        return;
      }
      claimed.add(name);
      pending.push(
        receive(stream, rule).then(
          (received) => {
            form.files.set(name, {
              filename: info.filename,
              contentType: info.mimeType,
              ...received,
            });
          },
          (error: unknown) => {
            if (error instanceof Overflow) abort(new ApiError(413, rule.tooLarge));
            // busboy ends open file streams when the body is malformed: not a storage problem.
            else if (parser.destroyed) abort(malformed());
            else abort(new ApiError(500, "The upload could not be stored."));
          },
        ),
      );
    });

    parser.on("field", (name, value, info) => {
      if (info.valueTruncated) refuse(new ApiError(413, `The ${name} field is too long.`));
      if (!form.fields.has(name)) form.fields.set(name, value);
    });
    const tooMany = (): void => refuse(new ApiError(400, "The form has too many parts."));
    parser.on("partsLimit", tooMany);
    parser.on("filesLimit", tooMany);
    parser.on("fieldsLimit", tooMany);

    parser.on("error", () => abort(malformed()));
    parser.on("close", () => {
      void Promise.all(pending).then(() => settle(refusal));
    });
    // A client that goes away mid-upload: destroying busboy ends the open file stream, which
    // lets its pipeline fail and delete the temp file.
    const interrupted = (): void => abort(new ApiError(400, "The upload was interrupted."));
    req.on("error", interrupted);
    req.on("close", () => {
      if (!req.complete) interrupted();
    });
    req.pipe(parser);
  });
}

/**
 * Consumes one file part: counts bytes and hashes them on the way, and writes them to a temp
 * file (deleted once read), to memory, or nowhere. Rejects with `Overflow` past `maxBytes`.
 */
async function receive(
  stream: Readable,
  rule: Omit<FilePartRule, "store"> & { store: FilePartRule["store"] | "discard" },
): Promise<{ bytes: number; sha256: string; buffer?: Buffer; keptPath?: string }> {
  const hash = createHash("sha256");
  let bytes = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length;
      if (bytes > rule.maxBytes && rule.store !== "discard") {
        callback(new Overflow());
        return;
      }
      hash.update(chunk);
      callback(null, chunk);
    },
  });
  // busboy cuts a file at its own limit; that is an overflow too. (Discarded parts must run to
  // their end instead: destroying busboy's file stream would stall the whole form.)
  if (rule.store !== "discard") stream.once("limit", () => meter.destroy(new Overflow()));

  if (rule.store === "disk") {
    const path = join(rule.keepIn ?? tmpdir(), `note-emulator-${randomUUID()}.upload`);
    let kept = false;
    try {
      await pipeline(stream, meter, createWriteStream(path));
      kept = rule.keepIn !== undefined;
    } finally {
      // Unless a test asked to look at it, only the numbers are kept.
      if (!kept) await rm(path, { force: true });
    }
    return { bytes, sha256: hash.digest("hex"), ...(kept ? { keptPath: path } : {}) };
  }

  const chunks: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      if (rule.store === "memory") chunks.push(chunk);
      callback();
    },
  });
  await pipeline(stream, meter, sink);
  const result = { bytes, sha256: hash.digest("hex") };
  return rule.store === "memory" ? { ...result, buffer: Buffer.concat(chunks) } : result;
}

/** Like nginx's lingering close: a client still sending after this long is cut off. */
const LINGER_MS = 30_000;

function discardRest(req: IncomingMessage): void {
  const timer = setTimeout(() => req.socket.destroy(), LINGER_MS);
  timer.unref();
  drainThen(req, () => clearTimeout(timer));
}

/** Reads the rest of a request body into the void, then calls `then`. */
export function drainThen(req: IncomingMessage, then: () => void): void {
  if (req.readableEnded || req.destroyed) {
    then();
    return;
  }
  let called = false;
  const once = (): void => {
    if (called) return;
    called = true;
    then();
  };
  req.once("end", once);
  req.once("close", once);
  req.resume();
}

function malformed(): ApiError {
  return new ApiError(400, "The multipart body is malformed.");
}

function noop(): void {}
