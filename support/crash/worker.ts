/**
 * A bot process for crash and replica tests: the real job layer (store, Note Service client,
 * runner) over a `RecordingGateway` whose journal survives a kill -9, plus a tiny control API.
 *
 * Environment:
 * - STORE_URL, KEY_PREFIX — the store (`sqlite://…`, `redis://…`), shared with restarts;
 * - NOTE_TAKER_BASE_URL, NOTE_TAKER_API_KEY — the emulator;
 * - JOURNAL, SOURCE, TEMP_DIR — gateway journal, the "Slack file", the runner's temp folder;
 * - DOWNLOAD_DELAY_MS — how long each download takes (to catch a job in `downloading`);
 * - PART_DELAY_MS — a pause before each note part is posted (to catch `delivering`);
 * - LEASE_TTL_MS (default 2000), QUEUE_CHECK_MS (default 200);
 * - CRASH_AT — `op[:arg]` (`part:1`, `docx`, `download`, `status:transcribing`): the process
 *   kills itself with SIGKILL right after the first matching gateway record is written;
 * - STALL_AT (same form), STALL_MS — instead, the whole process freezes for STALL_MS after
 *   the first matching record (a long GC pause or a starved VM), then carries on.
 *
 * Control API on 127.0.0.1 (port printed as `{"port":N,"pid":P}` on stdout once ready):
 * `POST /start` `{fileId, filename?, teamId?, channelId?, options?}` → StartResult (+ jobId),
 * `POST /jobs/:id/names` `{speakerMap}`, `POST /jobs/:id/skip` → CommandResult,
 * `GET /jobs/:id` → the job or 404, `GET /runner` → the runner's stats (steps running). SIGTERM stops the runner and closes the store.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { JobOptions } from "../../src/jobs/index.ts";
import type { SpeakerName } from "../../src/notetaker/index.ts";
import { origin, source } from "../helpers/jobs-kit.ts";
import { withValuesInline } from "../helpers/stored-values.ts";
import { envNumber, type GatewayRecord, workerJobs } from "./worker-jobs.ts";

/** `CRASH_AT=op[:arg]` as a predicate over gateway records. */
function crashMatcher(spec: string | undefined): ((record: GatewayRecord) => boolean) | undefined {
  if (spec === undefined || spec === "") return undefined;
  const [op, arg] = spec.split(":");
  return (record) => {
    if (record.op !== op) return false;
    if (arg === undefined) return true;
    if (record.op === "part") return record.index === Number(arg);
    if (record.op === "status") return record.stage === arg;
    return false;
  };
}

const env = process.env;
const crashAt = crashMatcher(env.CRASH_AT);
const stallAt = crashMatcher(env.STALL_AT);
const stallMs = envNumber(env, "STALL_MS", 0);
let crashed = false;
let stalled = false;
const { jobs, store } = await workerJobs(env, (record) => {
  if (!stalled && stallAt?.(record)) {
    stalled = true;
    // A stop-the-world pause (GC, CPU starvation, a frozen VM): the whole thread blocks,
    // lease renewals included; then the process carries on as if nothing happened.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, stallMs);
  }
  if (crashed || crashAt === undefined || !crashAt(record)) return;
  crashed = true;
  // The record is already in the journal (appended synchronously): like a Slack post that
  // went out, it stays. SIGKILL to ourselves: no further line of JS runs.
  process.kill(process.pid, "SIGKILL");
});
await jobs.runner.start();

interface StartBody {
  fileId: string;
  filename?: string;
  teamId?: string;
  channelId?: string;
  options?: JobOptions;
}

async function route(method: string, path: string, body: unknown): Promise<[number, unknown]> {
  if (method === "POST" && path === "/start") {
    const b = body as StartBody;
    const result = await jobs.service.start({
      origin: origin({
        ...(b.teamId === undefined ? {} : { teamId: b.teamId }),
        ...(b.channelId === undefined ? {} : { channelId: b.channelId }),
      }),
      source: source({
        fileId: b.fileId,
        ...(b.filename === undefined ? {} : { filename: b.filename }),
      }),
      options: b.options ?? {},
    });
    return [200, result.status === "created" ? { ...result, jobId: result.job.id } : result];
  }
  if (method === "GET" && path === "/runner") return [200, jobs.runner.stats()];
  const match = /^\/jobs\/([^/]+)(\/names|\/skip)?$/.exec(path);
  const id = match?.[1];
  if (id === undefined) return [404, { error: "no such route" }];
  if (method === "GET" && match?.[2] === undefined) {
    const job = await jobs.service.get(id);
    // Transcript and note as values, not blob references: what the test compares.
    return job === undefined
      ? [404, { error: "no such job" }]
      : [200, await withValuesInline(store, job)];
  }
  if (method === "POST" && match?.[2] === "/names") {
    const { speakerMap } = body as { speakerMap: SpeakerName[] };
    return [200, await jobs.service.submitNames(id, speakerMap)];
  }
  if (method === "POST" && match?.[2] === "/skip") {
    return [200, await jobs.service.skipNaming(id)];
  }
  return [404, { error: "no such route" }];
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  let text = "";
  for await (const chunk of req) text += String(chunk);
  let status: number;
  let payload: unknown;
  try {
    const body: unknown = text === "" ? undefined : JSON.parse(text);
    [status, payload] = await route(req.method ?? "GET", req.url ?? "/", body);
  } catch (error) {
    status = 500;
    payload = { error: error instanceof Error ? error.message : String(error) };
  }
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(payload));
}

const server = createServer((req, res) => void handle(req, res));
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  process.stdout.write(`${JSON.stringify({ port, pid: process.pid })}\n`);
});

let stopping = false;
process.on("SIGTERM", () => {
  if (stopping) return;
  stopping = true;
  server.close();
  server.closeAllConnections();
  jobs.runner
    .stop(2000)
    .then(() => store.close())
    .then(
      () => process.exit(0),
      () => process.exit(1),
    );
});
