import {
  createServer,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse,
  STATUS_CODES,
} from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Logger } from "../logger.ts";
import { DEFAULT_HTTP_TIMEOUTS, type HttpTimeouts } from "./http-timeouts.ts";

export interface Route {
  /** Matched exactly against the request target (without its query string). */
  path: string;
  /** Methods served; `GET` brings `HEAD` with it (Node sends no body for HEAD). */
  methods: readonly string[];
  /** Set when the handler reads the request body; otherwise a body means the connection ends. */
  readsBody?: boolean;
  handle(req: IncomingMessage, res: ServerResponse): void | Promise<void>;
}

export interface HttpSurfaceOptions {
  routes: readonly Route[];
  logger: Logger;
  timeouts?: Partial<HttpTimeouts>;
}

/** The process's HTTP server: its routes, and nothing a request does can end the process. */
export interface HttpSurface {
  /** Starts listening on `port` (0: any free port); resolves with the port. */
  listen(port: number): Promise<number>;
  /** Stops accepting, lets requests in flight finish (within a grace period), then resolves. */
  close(): Promise<void>;
}

/**
 * Our own HTTP server in both Slack modes: exact routes, 404, 405 and 501, a 500 when a
 * handler fails, and timeouts that cut slow clients.
 */
export function createHttpSurface(options: HttpSurfaceOptions): HttpSurface {
  const timeouts = { ...DEFAULT_HTTP_TIMEOUTS, ...options.timeouts };
  const routes = new Map(options.routes.map((route) => [route.path, route]));
  // The response in progress on each connection, so a client error never writes over one.
  const responses = new WeakMap<Socket, ServerResponse>();
  const server = createServer(
    {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      keepAliveTimeout: timeouts.keepAliveMs,
      connectionsCheckingInterval: timeouts.checkEveryMs,
    },
    (req, res) => {
      const socket = req.socket;
      responses.set(socket, res);
      res.once("finish", () => {
        if (responses.get(socket) === res) responses.delete(socket);
      });
      dispatch(routes, req, res, options.logger);
    },
  );
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) => {
    answerClientError(error, socket, responses.get(socket));
  });
  return {
    listen: (port) =>
      new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, () => {
          server.off("error", reject);
          resolve((server.address() as AddressInfo).port);
        });
      }),
    async close() {
      if (!server.listening) return;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      const cut = setTimeout(() => server.closeAllConnections(), timeouts.closeGraceMs);
      await closed;
      clearTimeout(cut);
    },
  };
}

/** Routes one request; whatever a handler throws or rejects with becomes a 500. */
function dispatch(
  routes: ReadonlyMap<string, Route>,
  req: IncomingMessage,
  res: ServerResponse,
  logger: Logger,
): void {
  const fail = (error: unknown) => {
    logger.error({ err: error, method: req.method }, "HTTP request failed");
    if (res.headersSent) res.destroy();
    else answer(res, 500, { connection: "close" });
  };
  try {
    const route = routes.get(pathOf(req.url ?? ""));
    // A body nobody reads is not worth draining: the connection ends with the answer.
    if (hasBody(req) && route?.readsBody !== true) res.setHeader("connection", "close");
    if (route === undefined) {
      answer(res, 404);
      return;
    }
    const allowed = allowedMethods(route);
    if (!allowed.includes(req.method ?? "")) {
      answer(res, 405, { allow: allowed.join(", ") });
      return;
    }
    const done = route.handle(req, res);
    if (done instanceof Promise) done.catch(fail);
  } catch (error) {
    fail(error);
  }
}

/** The request target up to its query string, taken as it is: no decoding, no URL parsing. */
function pathOf(target: string): string {
  const query = target.indexOf("?");
  return query === -1 ? target : target.slice(0, query);
}

function allowedMethods(route: Route): string[] {
  const methods = [...route.methods];
  if (methods.includes("GET") && !methods.includes("HEAD")) methods.push("HEAD");
  return methods;
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers["content-length"];
  return req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

function answer(res: ServerResponse, status: number, headers: OutgoingHttpHeaders = {}): void {
  res.writeHead(status, { "content-length": 0, ...headers });
  res.end();
}

/** Node's parse and timeout errors, answered as Node would, plus 501 for unknown methods. */
const CLIENT_ERROR_STATUS: Record<string, number> = {
  HPE_INVALID_METHOD: 501,
  HPE_HEADER_OVERFLOW: 431,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 413,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
};

/** A request Node could not parse, or past a timeout: one status line if nothing was sent. */
function answerClientError(
  error: NodeJS.ErrnoException,
  socket: Socket,
  response: ServerResponse | undefined,
): void {
  if (error.code !== "ECONNRESET" && socket.writable && response?.headersSent !== true) {
    const status = CLIENT_ERROR_STATUS[error.code ?? ""] ?? 400;
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`,
    );
  }
  socket.destroy();
}
