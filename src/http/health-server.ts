import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** What `/healthz` needs to know; more checks join here as the app grows. */
export interface HealthServer {
  listen(port: number): Promise<number>;
  close(): Promise<void>;
}

/**
 * A tiny HTTP server for `GET /healthz`: 200 while the process is up and not shutting down,
 * 503 afterwards, 404 for anything else.
 */
export function createHealthServer(isStopping: () => boolean): HealthServer {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method === "GET" && path === "/healthz") {
      const stopping = isStopping();
      res.writeHead(stopping ? 503 : 200, { "content-type": "application/json" });
      res.end(JSON.stringify({ ok: !stopping }));
      return;
    }
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ ok: false, error: "not found" }));
  });
  return {
    listen: (port) =>
      new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, () => resolve((server.address() as AddressInfo).port));
      }),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
