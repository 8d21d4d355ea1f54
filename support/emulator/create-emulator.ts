import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { handleApiRequest } from "./api-routes.ts";
import { BASE_PATH, type EmulatorContext } from "./context.ts";
import { resetEmulatorState } from "./control-routes.ts";
import { sendFailure } from "./http-reply.ts";
import { applyKnobsPatch, defaultKnobs, type Knobs, type KnobsPatch } from "./knobs.ts";
import { handleResultRequest } from "./result-routes.ts";
import { createSigner } from "./signing.ts";
import { createStats, type EmulatorStats } from "./stats.ts";
import { TaskStore } from "./tasks.ts";

export interface EmulatorOptions {
  /** Port of the API origin; 0 (default) picks a free one. */
  port?: number;
  /** Port of the result origin (dialog and DOCX files); 0 (default) picks a free one. */
  resultPort?: number;
  /** Interface to listen on; default `127.0.0.1`. */
  host?: string;
  /** The key expected in `X-API-Key`; default a random one. */
  apiKey?: string;
  /** Knobs to start with, on top of the defaults (`reset()` goes back to the defaults). */
  knobs?: KnobsPatch;
  /** Keep each poll's task id and time for `GET /_emulator/polls` (benchmarks). */
  pollLog?: boolean;
  /**
   * Build a note's DOCX once per distinct Markdown and hand out the same bytes after
   * (benchmarks: thousands of identical notes would each cost ≈10 ms of this process).
   */
  reuseDocx?: boolean;
}

export interface Emulator {
  /** `http://127.0.0.1:<port>/api/v1/third-party/note-taker` */
  readonly baseUrl: string;
  /** `http://127.0.0.1:<resultPort>`: where `dialog_url` and `docx_url` point. */
  readonly resultOrigin: string;
  readonly apiKey: string;
  /** Behaviour switches, read on every request; change them freely between requests. */
  readonly knobs: Knobs;
  /** What the emulator has seen; live, emptied in place by `reset()`. */
  readonly stats: EmulatorStats;
  /** Forgets all tasks, empties the stats and restores the default knobs. */
  reset(): void;
  /** Stops both servers, cutting open connections. */
  close(): Promise<void>;
}

/**
 * Starts a Note Service emulator: an API origin serving the spec's four endpoints and a
 * separate result origin serving the files, so tests can prove credentials never reach the
 * file host.
 */
export async function createEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const host = options.host ?? "127.0.0.1";
  const apiKey = options.apiKey ?? `emulator-${randomBytes(12).toString("hex")}`;
  const knobs = defaultKnobs();
  if (options.knobs !== undefined) applyKnobsPatch(knobs, options.knobs);

  let ctx: EmulatorContext | undefined;
  const serve =
    (handler: typeof handleApiRequest) =>
    (req: IncomingMessage, res: ServerResponse): void => {
      if (ctx === undefined) {
        res.writeHead(503).end();
        return;
      }
      handler(ctx, req, res).catch((error: unknown) => sendFailure(res, error));
    };
  const apiServer = createServer(serve(handleApiRequest));
  const resultServer = createServer(serve(handleResultRequest));

  const apiPort = await listen(apiServer, options.port ?? 0, host);
  const resultPort = await listen(resultServer, options.resultPort ?? 0, host).catch(
    async (error: unknown) => {
      await stop(apiServer);
      throw error;
    },
  );

  const origin = (port: number): string => `http://${urlHost(host)}:${port}`;
  const resultOrigin = origin(resultPort);
  const signer = createSigner();
  const stats = createStats();
  ctx = {
    apiKey,
    resultOrigin,
    knobs,
    stats,
    signer,
    tasks: new TaskStore(knobs, signer, resultOrigin, { reuseDocx: options.reuseDocx ?? false }),
    ...(options.pollLog ? { pollLog: new Map<string, number[]>() } : {}),
  };
  const context = ctx;

  return {
    baseUrl: origin(apiPort) + BASE_PATH,
    resultOrigin,
    apiKey,
    knobs,
    stats,
    reset: () => resetEmulatorState(context),
    close: async () => {
      await Promise.all([stop(apiServer), stop(resultServer)]);
    },
  };
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function stop(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    // Keep-alive connections would otherwise hold `close` open for seconds.
    server.closeAllConnections();
  });
}

/** A wildcard address is reached through loopback; IPv6 literals need brackets in URLs. */
function urlHost(host: string): string {
  if (host === "0.0.0.0" || host === "") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
}
