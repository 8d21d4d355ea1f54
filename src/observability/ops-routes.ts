import type { ServerResponse } from "node:http";
import type { Route } from "../http/http-surface.ts";
import type { ReadinessReport } from "./readiness.ts";

/** The ops routes: health and readiness on the main port, metrics wherever configured. */
export interface OpsRoutes {
  health: Route[];
  metrics: Route;
}

export interface OpsRoutesOptions {
  /** False once the process is shutting down. */
  alive: () => boolean;
  ready: () => Promise<ReadinessReport>;
  /** The Prometheus text and its content type. */
  scrape: () => Promise<{ text: string; contentType: string }>;
  onError: (error: unknown) => void;
}

/** `/healthz`, `/readyz` (the checks' last results) and `/metrics`, in both Slack modes. */
export function opsRoutes(options: OpsRoutesOptions): OpsRoutes {
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  const guarded =
    (run: (res: ServerResponse) => Promise<void>) =>
    (_req: unknown, res: ServerResponse): Promise<void> =>
      run(res).catch((error: unknown) => {
        options.onError(error);
        if (!res.headersSent) json(res, 500, { ok: false });
      });
  return {
    health: [
      {
        path: "/healthz",
        methods: ["GET"],
        handle: (_req, res) => {
          const ok = options.alive();
          json(res, ok ? 200 : 503, { ok });
        },
      },
      {
        path: "/readyz",
        methods: ["GET"],
        handle: guarded(async (res) => {
          // Shutting down: not ready, whatever the checks last found.
          const report = options.alive()
            ? await options.ready()
            : { ...(await options.ready()), ok: false };
          json(res, report.ok ? 200 : 503, report);
        }),
      },
    ],
    metrics: {
      path: "/metrics",
      methods: ["GET"],
      handle: guarded(async (res) => {
        const { text, contentType } = await options.scrape();
        res.writeHead(200, { "content-type": contentType });
        res.end(text);
      }),
    },
  };
}
