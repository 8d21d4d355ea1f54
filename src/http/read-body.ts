import type { IncomingMessage } from "node:http";

/** What reading a body gave: the bytes, or why there are none. */
export type BodyRead = { body: Buffer } | { refused: "too_large" | "aborted" };

/**
 * Reads a request body into memory, counting bytes as they come: past `maxBytes` it stops
 * (keeping nothing more) and says so, whatever `Content-Length` claimed. A connection that
 * closes first (the client left, or the request timeout cut it) resolves as `aborted`; the
 * promise never rejects. Plain listeners: an async iterator cost ~10 µs per request here.
 */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<BodyRead> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (result: BodyRead) => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("close", onClose);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) settle({ refused: "too_large" });
      else chunks.push(chunk);
    };
    const onEnd = () => settle({ body: Buffer.concat(chunks, size) });
    const onClose = () => settle({ refused: "aborted" });
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("close", onClose);
    // An aborted request may emit `error` (only when someone listens); `close` says it all.
    req.on("error", () => {});
  });
}
