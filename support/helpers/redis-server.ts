import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { createConnection } from "node:net";
import { eventually } from "./eventually.ts";
import { freePort } from "./free-port.ts";

/**
 * Whether `redis-server` can be started here: the fault tests skip without it, except under
 * REQUIRE_REDIS=1 (CI), where a missing binary fails the run as a missing REDIS_URL does.
 */
export const HAS_REDIS_SERVER = spawnSync("redis-server", ["--version"]).status === 0;
if (!HAS_REDIS_SERVER && process.env.REQUIRE_REDIS === "1") {
  throw new Error("redis-server must be on PATH (REQUIRE_REDIS=1): apt-get install redis-server");
}

/**
 * A redis-server of the test's own, on a free port, keeping nothing on disk: it can be
 * paused (SIGSTOP: connections stay open, nothing is answered), resumed, and killed and
 * started again empty — what a shared Redis must never be put through.
 */
export interface PrivateRedis {
  readonly port: number;
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  pause(): void;
  resume(): void;
  /** Kills it (paused or not) and starts a new, empty one on the same port. */
  restartEmpty(): Promise<void>;
  /** Kills it (kill -9) and leaves the port closed until {@link PrivateRedis.start}. */
  kill(): Promise<void>;
  /**
   * Starts it again on the same port after {@link PrivateRedis.kill}: with `persistIn`, it
   * reads back what it had written (its append-only file), as a Redis with persistence does.
   */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * `persistIn`: a folder where it keeps an append-only file, each write flushed before it is
 * answered (`appendfsync always`), so a kill loses nothing it acknowledged; without it,
 * nothing is kept on disk.
 */
export async function startPrivateRedis(
  options: { persistIn?: string } = {},
): Promise<PrivateRedis> {
  const port = await freePort();
  let child = await launch(port, options.persistIn);
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    pause: () => void child.kill("SIGSTOP"),
    resume: () => void child.kill("SIGCONT"),
    async restartEmpty() {
      await kill(child);
      child = await launch(port);
    },
    kill: () => kill(child),
    async start() {
      child = await launch(port, options.persistIn);
    },
    stop: () => kill(child),
  };
}

async function launch(port: number, persistIn?: string): Promise<ChildProcess> {
  const persistence =
    persistIn === undefined
      ? ["--appendonly", "no"]
      : ["--dir", persistIn, "--appendonly", "yes", "--appendfsync", "always"];
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", ...persistence],
    { stdio: "ignore" },
  );
  await eventually(
    () => answersPing(port),
    (ok) => ok,
    { what: `redis-server on port ${port}`, timeoutMs: 5_000 },
  );
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGKILL");
  await exited;
}

/** One `PING` over a raw connection: true on `+PONG`. */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once("error", () => done(false));
    socket.once("data", (data) => done(data.toString().startsWith("+PONG")));
    socket.once("connect", () => socket.write("PING\r\n"));
  });
}
