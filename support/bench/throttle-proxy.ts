/**
 * A network link of limited bandwidth in front of one server, in a process of its own: a
 * TCP relay whose two directions each carry at most BYTES_PER_SECOND, shared by every
 * connection (one link, as a host's uplink is), with backpressure — a full link stops
 * reading from the sender, so the sender's socket fills and it waits, as on a slow network.
 * No latency is added: this models bandwidth only.
 * Usage: node support/bench/throttle-proxy.ts TARGET_PORT BYTES_PER_SECOND
 * Prints `{"port":N}` once listening on 127.0.0.1; stops on SIGTERM.
 */
import { once } from "node:events";
import { connect, createServer, type Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

const [targetPort, rate] = process.argv.slice(2).map(Number);
if (!targetPort || !rate || rate <= 0) {
  process.stderr.write("usage: throttle-proxy.ts TARGET_PORT BYTES_PER_SECOND\n");
  process.exit(2);
}

/**
 * Credit an idle link may bank: a chunk that was due during a late timer goes at once, so
 * timer overshoot does not lower the rate, while an idle link cannot burst by more than this.
 */
const BURST_MS = 5;

/** One direction of the link: chunks go out in turn, each once those before it have. */
class Link {
  readonly #bytesPerMs: number;
  /** When (`performance.now()`) the link has sent everything given to it so far. */
  #freeAt = 0;

  constructor(bytesPerSecond: number) {
    this.#bytesPerMs = bytesPerSecond / 1000;
  }

  /** Books `bytes` on the link; resolves when they have gone through it. */
  async carry(bytes: number): Promise<void> {
    const now = performance.now();
    this.#freeAt = Math.max(this.#freeAt, now - BURST_MS) + bytes / this.#bytesPerMs;
    const wait = this.#freeAt - now;
    if (wait >= 1) await sleep(wait);
  }
}

const up = new Link(rate);
const down = new Link(rate);

/** Moves `from`'s bytes to `to` at the link's pace, reading no faster than it carries. */
async function pump(from: Socket, to: Socket, link: Link): Promise<void> {
  for await (const chunk of from as AsyncIterable<Buffer>) {
    await link.carry(chunk.length);
    if (!to.write(chunk)) await once(to, "drain");
  }
  to.end();
}

// Half-open allowed: each direction ends on its own, once the link has carried its last byte.
const server = createServer({ allowHalfOpen: true }, (client) => {
  const upstream = connect({ host: "127.0.0.1", port: targetPort, allowHalfOpen: true });
  // A reset on either side drops both (with an error, so a pending wait for "drain" ends).
  const drop = () => {
    const error = new Error("connection dropped");
    client.destroy(error);
    upstream.destroy(error);
  };
  for (const socket of [client, upstream]) {
    socket.setNoDelay(true);
    socket.on("error", drop);
  }
  pump(client, upstream, up).catch(drop);
  pump(upstream, client, down).catch(drop);
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  process.stdout.write(`${JSON.stringify({ port })}\n`);
});

// Nothing to save: connections in flight are the benchmark's, which is over.
process.on("SIGTERM", () => process.exit(0));
process.on("SIGINT", () => process.exit(0));
