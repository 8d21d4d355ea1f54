import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  request,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo, Socket } from "node:net";

/**
 * What the proxy does to a request a rule matches:
 * - `lose_503`: forwards it, lets the server answer in full, then answers 503 instead — the
 *   call happened, the caller cannot know (a gateway timing out, a load balancer failing);
 * - `lose_reset`: forwards it, lets the server answer, then resets the connection;
 * - `refuse_503`: answers 503 without forwarding (the server never sees it);
 * - `reset`: resets the connection without forwarding;
 * - `hang`: takes the request and never answers it (a server that stopped answering, a
 *   black-holed link); the connection stays open until the caller gives up or the proxy
 *   stops.
 */
export type Fault = "lose_503" | "lose_reset" | "refuse_503" | "reset" | "hang";

/** When a fault applies. A rule with neither `methods` nor `path` matches every request. */
export interface FaultRule {
  /** Web API methods (`/api/<method>`), e.g. `chat.postMessage`. */
  methods?: readonly string[];
  /** Or a test of the request's path (`/files-pri/…` downloads, `/upload/v1/…` uploads). */
  path?: RegExp;
  fault: Fault;
  /** How many matching requests it takes before it retires; default: until `heal()`. */
  times?: number;
}

/** A request the proxy saw, and what it did to it. */
export interface ProxiedRequest {
  method: string;
  path: string;
  /** The Web API method, for `/api/<method>`. */
  apiMethod: string | undefined;
  fault: Fault | undefined;
  /** What the server answered (undefined when it was not asked or did not answer). */
  upstreamStatus: number | undefined;
  at: number;
}

interface ActiveRule extends FaultRule {
  /** Matching requests it has taken. */
  hits: number;
}

/**
 * An HTTP proxy in front of a test server (the fake Slack) whose faults a test switches on
 * and off: it forwards everything as it is, except what a rule matches. The point is the
 * faults a client cannot tell apart — a request that reached the server and whose answer
 * was lost, versus one that never arrived — so a test can show that nothing is done twice
 * and nothing is lost. Give the fake `publicOrigin: proxy.origin` so the file and upload
 * URLs it hands out lead through the proxy too.
 */
export class HttpFaultProxy {
  readonly requests: ProxiedRequest[] = [];
  readonly #rules: ActiveRule[] = [];
  readonly #sockets = new Set<Socket>();
  #server: Server | undefined;
  #port = 0;
  /** Where requests go: `http://127.0.0.1:<port>` of the server behind. */
  target: string;
  origin = "";

  constructor(target = "") {
    this.target = target;
  }

  /**
   * Listens (again): on a free port the first time, then on the same one, so a caller that
   * was refused while the proxy was closed reaches it again at the same address.
   */
  async start(): Promise<void> {
    const server = createServer((req, res) => this.#handle(req, res));
    server.on("connection", (socket) => {
      this.#sockets.add(socket);
      socket.on("close", () => this.#sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.#port, "127.0.0.1", () => resolve());
    });
    this.#port = (server.address() as AddressInfo).port;
    this.origin = `http://127.0.0.1:${this.#port}`;
    this.#server = server;
  }

  /**
   * Closes the port and drops every connection: callers are refused (ECONNREFUSED), as by a
   * host that is down, until {@link HttpFaultProxy.start} listens on the same port again.
   */
  async refuseConnections(): Promise<void> {
    await this.stop();
  }

  /** Switches a fault on; returns a handle whose `hits` counts the requests it took. */
  add(rule: FaultRule): { readonly hits: number } {
    const active = { ...rule, hits: 0 };
    this.#rules.push(active);
    return active;
  }

  /** Switches every fault off: from now on everything is forwarded as it is. */
  heal(): void {
    this.#rules.length = 0;
  }

  /** The requests of one Web API method the proxy saw. */
  callsTo(apiMethod: string): ProxiedRequest[] {
    return this.requests.filter((r) => r.apiMethod === apiMethod);
  }

  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    for (const socket of this.#sockets) socket.destroy();
    if (server !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  #faultFor(path: string, apiMethod: string | undefined): Fault | undefined {
    const rule = this.#rules.find(
      (r) =>
        (r.times === undefined || r.hits < r.times) &&
        (r.methods === undefined || (apiMethod !== undefined && r.methods.includes(apiMethod))) &&
        (r.path === undefined || r.path.test(path)),
    );
    if (rule === undefined) return undefined;
    rule.hits += 1;
    return rule.fault;
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const apiMethod = /^\/api\/([A-Za-z0-9_.]+)$/.exec(path)?.[1];
    const fault = this.#faultFor(path, apiMethod);
    const seen: ProxiedRequest = {
      method: req.method ?? "GET",
      path,
      apiMethod,
      fault,
      upstreamStatus: undefined,
      at: Date.now(),
    };
    this.requests.push(seen);
    if (fault === "reset") return void req.socket.destroy();
    if (fault === "hang") return void req.resume();
    if (fault === "refuse_503") {
      req.resume();
      return void unavailable(res);
    }
    this.#forward(req, res, seen);
  }

  /** Sends the request on; its answer goes back, or is lost as the fault says. */
  #forward(req: IncomingMessage, res: ServerResponse, seen: ProxiedRequest): void {
    const target = new URL(req.url ?? "/", this.target);
    const upstream = request(
      target,
      { method: req.method, headers: { ...req.headers, host: target.host } },
      (answer) => {
        seen.upstreamStatus = answer.statusCode;
        if (seen.fault === undefined) {
          res.writeHead(answer.statusCode ?? 502, withoutHopHeaders(answer.headers));
          answer.pipe(res);
          return;
        }
        // The server did the work and answered in full; the caller never hears of it.
        answer.resume();
        answer.on("end", () => {
          if (seen.fault === "lose_reset") req.socket.destroy();
          else unavailable(res);
        });
      },
    );
    upstream.on("error", () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    req.pipe(upstream);
  }
}

/** What a gateway in front of Slack answers when it gave up: 503 and a little HTML. */
function unavailable(res: ServerResponse): void {
  res.writeHead(503, { "content-type": "text/html; charset=utf-8" });
  res.end("<html><body><h1>503 Service Unavailable</h1></body></html>");
}

/** The answer's headers, without those about this hop's connection. */
function withoutHopHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const { connection: _c, "keep-alive": _k, "transfer-encoding": _t, ...rest } = headers;
  return rest;
}
