import type { IncomingMessage, ServerResponse } from "node:http";
import type { Registry } from "prom-client";
import type { ReadinessReport } from "./readiness.ts";

/** A route Bolt's receivers serve next to Slack's (`customRoutes`). */
export interface OpsRoute {
  path: string;
  method: string[];
  handler: (req: IncomingMessage, res: ServerResponse) => void;
}

export interface OpsRoutesOptions {
  /** False once the process is shutting down. */
  alive: () => boolean;
  ready: () => Promise<ReadinessReport>;
  registry: Registry;
  onError: (error: unknown) => void;
}

/**
 * `GET /healthz` (the process is up), `GET /readyz` (store reachable, Slack token accepted)
 * and `GET /metrics` (Prometheus text). Served in both Slack modes.
 */
export function opsRoutes(options: OpsRoutesOptions): OpsRoute[] {
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  const guarded =
    (run: (res: ServerResponse) => Promise<void>) =>
    (_req: IncomingMessage, res: ServerResponse) => {
      run(res).catch((error: unknown) => {
        options.onError(error);
        if (!res.headersSent) json(res, 500, { ok: false });
      });
    };
  return [
    {
      path: "/healthz",
      method: ["GET"],
      handler: (_req, res) => {
        const ok = options.alive();
        json(res, ok ? 200 : 503, { ok });
      },
    },
    {
      path: "/readyz",
      method: ["GET"],
      handler: guarded(async (res) => {
        const report = options.alive()
          ? await options.ready()
          : { ok: false, store: false, slack: false };
        json(res, report.ok ? 200 : 503, report);
      }),
    },
    {
      path: "/metrics",
      method: ["GET"],
      handler: guarded(async (res) => {
        const text = await options.registry.metrics();
        res.writeHead(200, { "content-type": options.registry.contentType });
        res.end(text);
      }),
    },
  ];
}
