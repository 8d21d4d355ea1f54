import { createHash, type Hash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Readable } from "node:stream";
import busboy from "busboy";
import type { FakeSlackStore } from "./fake-slack-store.ts";
import type { FakeUpload } from "./fake-slack-types.ts";

/** Fault knob of the upload URL: answer `status` to the next `count` uploads. */
export interface UploadFailure {
  count: number;
  status: number;
}

/**
 * The upload URL that `files.getUploadURLExternal` hands out. `@slack/web-api` POSTs the
 * bytes as `multipart/form-data` (one part named `body`, filename `Untitled`); other
 * clients may POST them raw. Either way only the size and SHA-256 are kept, plus the bytes
 * themselves when no larger than `keepBytes`, so a large upload costs no memory.
 */
export async function receiveUpload(
  req: IncomingMessage,
  res: ServerResponse,
  store: FakeSlackStore,
  keepBytes: number,
  failure: UploadFailure | undefined,
): Promise<void> {
  const fileId = store.uploadPaths.get(new URL(req.url ?? "/", "http://x").pathname);
  const upload = fileId === undefined ? undefined : store.upload(fileId);
  if (req.method !== "POST" || upload === undefined || upload.completed) {
    req.resume();
    res.writeHead(404, { "content-type": "text/plain" }).end("Not Found");
    return;
  }
  if (failure !== undefined && failure.count > 0) {
    failure.count -= 1;
    req.resume();
    res.writeHead(failure.status, { "content-type": "text/plain" }).end("Upload failed");
    return;
  }
  const contentType = req.headers["content-type"] ?? "application/octet-stream";
  const sink = new UploadSink(keepBytes);
  if (contentType.toLowerCase().startsWith("multipart/form-data")) {
    await readMultipartFiles(req, sink);
  } else {
    await sink.consume(req);
  }
  record(upload, sink, contentType);
  res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end(`OK - ${sink.size}`);
}

function record(upload: FakeUpload, sink: UploadSink, contentType: string): void {
  upload.bytes = sink.size;
  upload.sha256 = sink.hash.digest("hex");
  upload.content_type = contentType;
  const data = sink.data();
  if (data === undefined) delete upload.data;
  else upload.data = data;
}

/** Hashes streamed bytes and keeps them only while they fit in `keepBytes`. */
class UploadSink {
  readonly hash: Hash = createHash("sha256");
  size = 0;
  #chunks: Buffer[] | undefined = [];
  readonly #keepBytes: number;

  constructor(keepBytes: number) {
    this.#keepBytes = keepBytes;
  }

  async consume(stream: Readable): Promise<void> {
    for await (const chunk of stream) {
      const buffer = chunk as Buffer;
      this.size += buffer.length;
      this.hash.update(buffer);
      if (this.#chunks !== undefined && this.size <= this.#keepBytes) this.#chunks.push(buffer);
      else this.#chunks = undefined;
    }
  }

  data(): Buffer | undefined {
    return this.#chunks === undefined ? undefined : Buffer.concat(this.#chunks);
  }
}

/** Feeds every file part of a multipart body into `sink` (fields are ignored). */
function readMultipartFiles(req: IncomingMessage, sink: UploadSink): Promise<void> {
  return new Promise((resolve, reject) => {
    const parser = busboy({ headers: req.headers });
    const parts: Promise<void>[] = [];
    parser.on("file", (_name, stream) => {
      parts.push(sink.consume(stream));
    });
    parser.on("close", () => {
      Promise.all(parts).then(() => resolve(), reject);
    });
    parser.on("error", reject);
    req.on("error", reject);
    req.pipe(parser);
  });
}
