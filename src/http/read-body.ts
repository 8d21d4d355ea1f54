import type { IncomingMessage } from "node:http";

export type BodyRead = { body: Buffer } | { refused: "too_large" | "aborted" };

/** Reads a body into memory up to `maxBytes`, whatever `Content-Length` claimed; never rejects. */
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
