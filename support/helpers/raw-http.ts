import { connect, type Socket } from "node:net";

/** What a server said to bytes written on a raw connection. */
export interface RawAnswer {
  /** The status code of the first response; undefined when none came. */
  status: number | undefined;
  /** The response head (status line and headers), as sent. */
  head: string;
  /** Milliseconds from connecting until the head arrived (or the connection ended). */
  ms: number;
  /** Resolves true once the server closes the connection, false if it is still open after `ms`. */
  closedWithin(ms: number): Promise<boolean>;
  socket: Socket;
}

export interface RawOptions {
  /** Give up waiting for an answer after this long (default 3 s). */
  giveUpMs?: number;
  /** Written after `request`, one by one, `everyMs` apart, until an answer comes. */
  trickle?: { chunk: string | Buffer; everyMs: number };
}

/**
 * Writes `request` (one string or buffer, or several parts) as it is on a plain TCP connection — no client library to normalise the
 * method, the target or the framing — and resolves with the first response head. A write the
 * server refuses (it closed the connection) is not an error: the answer says what happened.
 */
export function rawRequest(
  port: number,
  request: string | Buffer | readonly (string | Buffer)[],
  options: RawOptions = {},
): Promise<RawAnswer> {
  const started = performance.now();
  const socket = connect(port, "127.0.0.1");
  socket.on("error", () => {});
  let closed = false;
  const onClose = new Promise<void>((resolve) =>
    socket.once("close", () => {
      closed = true;
      resolve();
    }),
  );
  let trickle: NodeJS.Timeout | undefined;
  return new Promise((resolve) => {
    let received = "";
    const finish = () => {
      clearInterval(trickle);
      clearTimeout(giveUp);
      socket.off("data", onData);
      const end = received.indexOf("\r\n\r\n");
      const head = end === -1 ? received : received.slice(0, end);
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1];
      resolve({
        status: status === undefined ? undefined : Number(status),
        head,
        ms: performance.now() - started,
        closedWithin: (ms) =>
          closed
            ? Promise.resolve(true)
            : Promise.race([
                onClose.then(() => true),
                new Promise<boolean>((r) => setTimeout(() => r(false), ms)),
              ]),
        socket,
      });
    };
    const onData = (data: Buffer) => {
      received += data.toString("latin1");
      if (received.includes("\r\n\r\n")) finish();
    };
    const giveUp = setTimeout(finish, options.giveUpMs ?? 3_000);
    socket.on("data", onData);
    void onClose.then(finish);
    // Parts are written as they are: a large buffer shared by many requests is not copied.
    for (const part of Array.isArray(request) ? request : [request]) socket.write(part);
    const { trickle: drip } = options;
    if (drip !== undefined) {
      trickle = setInterval(() => {
        if (socket.writable) socket.write(drip.chunk);
      }, drip.everyMs);
    }
  });
}
