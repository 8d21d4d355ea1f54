import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ACTIONS } from "../../src/slack/ids.ts";
import {
  ALICE,
  buttonValue,
  CHANNEL,
  eventually,
  noteParts,
  SIGNING_SECRET,
  type Stack,
  shareRecording,
  startStack,
  statusMessage,
} from "../../support/e2e/stack.ts";
import { blockActionPayload } from "../../support/fake-slack/slack-payloads.ts";
import { sendAction } from "../../support/fake-slack/slack-request.ts";

const MIB = 1024 * 1024;
const REFUSED =
  "The Note Service sent a link to an address I may not open (only public https links are allowed), so I stopped.";
const TOO_LARGE =
  "The transcript the Note Service returned is larger than 20 MB, so I stopped reading it.";

/** Alice shares a recording in the channel; returns the thread's ts. */
const upload = async (stack: Stack) =>
  (await shareRecording(stack, "weekly-sync.m4a", { text: "sync" })).ts;

/** Waits until the status message says `sentence`; returns it. */
function failedWith(stack: Stack, threadTs: string, sentence: string) {
  return eventually(
    () => statusMessage(stack.thread(threadTs)),
    (m) => m?.text.includes(sentence) === true,
    15_000,
  );
}

/** An "internal service" on loopback: whatever it is asked for is recorded and answered. */
async function startInternal() {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(req.url ?? "/");
    res.writeHead(200, { "content-type": "application/octet-stream" });
    res.end(Buffer.concat([Buffer.from("PK\u0003\u0004", "latin1"), Buffer.from("secret")]));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { hits, origin, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe("result links in strict mode (the Note Service on a DNS name)", () => {
  let stack: Stack;
  let internal: Awaited<ReturnType<typeof startInternal>>;
  beforeAll(async () => {
    internal = await startInternal();
    // The emulator's result origin is trusted under the name `localhost` only.
    stack = await startStack({ RESULT_LINK_HOSTS: "localhost" }, { apiHost: "notes.test" });
  });
  afterAll(async () => {
    await stack.stop();
    await internal.close();
  });
  beforeEach(() => {
    stack.emulator.reset();
    internal.hits.length = 0;
  });
  const resultPaths = () =>
    stack.emulator.stats.requests.filter((r) => r.origin === "result").map((r) => r.path);

  it("refuses links at 127.0.0.1 over http, without fetching them", async () => {
    const ts = await upload(stack);
    const status = await failedWith(stack, ts, REFUSED);
    expect(buttonValue(status, ACTIONS.retry)).toBeUndefined();
    expect(stack.emulator.stats.polls.audio).toBeGreaterThan(0);
    expect(resultPaths()).toEqual([]);
  });

  it("refuses a dialog_url that redirects to 127.0.0.1", async () => {
    stack.emulator.knobs.linkHost = "localhost";
    stack.emulator.knobs.dialogRedirectUrl = `${internal.origin}/latest/meta-data/dialog.json`;
    const ts = await upload(stack);
    await failedWith(stack, ts, REFUSED);
    // The allowlisted first hop was fetched; its redirect to loopback was not.
    expect(resultPaths()).toEqual([expect.stringMatching(/^\/r\/dialog\//)]);
    expect(internal.hits).toEqual([]);
    expect(stack.thread(ts).filter((m) => m.bot_id !== undefined)).toHaveLength(1);
  });

  it("does not upload an internal file named as the docx_url", async () => {
    stack.emulator.knobs.linkHost = "localhost";
    stack.emulator.knobs.docxUrl = `${internal.origin}/backup/secret.docx`;
    const ts = await upload(stack);
    // The dialog came through the allowlisted host, so the job asks for names; skip them.
    const status = await eventually(
      () => statusMessage(stack.thread(ts)),
      (m) => buttonValue(m, ACTIONS.skipNaming) !== undefined,
    );
    const payload = blockActionPayload({
      actionId: ACTIONS.skipNaming,
      value: buttonValue(status, ACTIONS.skipNaming) ?? "",
      user: ALICE,
      channel: CHANNEL,
      messageTs: status?.ts ?? "",
    });
    expect((await sendAction(stack.url, SIGNING_SECRET, payload)).status).toBe(200);
    await failedWith(stack, ts, REFUSED);
    expect(stack.emulator.stats.noteSubmissions).toHaveLength(1);
    expect(internal.hits).toEqual([]);
    expect(stack.fake.uploads).toEqual([]);
    expect(noteParts(stack.thread(ts))).toEqual([]);
  });
});

const DIALOG_MIB = 50;
describe("a 50 MB dialog (local trial)", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.stop());

  it("fails the job with one sentence while /healthz keeps answering and RSS stays moderate", async () => {
    stack.emulator.knobs.dialogBytes = DIALOG_MIB * MIB;
    const healthz = new URL("/healthz", stack.url).href;
    const loop = monitorEventLoopDelay({ resolution: 10 });
    const baselineRss = process.memoryUsage.rss();
    // The process's high-water mark so far: test files share this worker, so it may hold an
    // earlier file's peak; it counts only if this test raises it.
    const maxRssBefore = process.resourceUsage().maxRSS * 1024;
    let peakRss = baselineRss;
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage.rss());
    }, 5);
    const latencies: { ms: number; duringDownload: boolean }[] = [];
    let finished = false;
    const dialogRequested = () =>
      stack.emulator.stats.requests.some((r) => r.path.startsWith("/files/dialog/"));
    const probe = (async () => {
      while (!finished) {
        const started = performance.now();
        const response = await fetch(healthz);
        await response.arrayBuffer();
        expect(response.status).toBe(200);
        latencies.push({ ms: performance.now() - started, duringDownload: dialogRequested() });
      }
    })();
    loop.enable();
    let status: Awaited<ReturnType<typeof failedWith>>;
    try {
      const ts = await upload(stack);
      status = await failedWith(stack, ts, TOO_LARGE);
    } finally {
      finished = true;
      await probe;
      loop.disable();
      clearInterval(sampler);
    }
    const during = latencies.filter((l) => l.duringDownload).map((l) => l.ms);
    // The OS high-water mark also catches a peak inside synchronous work, which the sampler
    // (a timer on the same thread) cannot see — when this test is what raised it.
    const maxRssAfter = process.resourceUsage().maxRSS * 1024;
    const highWater = maxRssAfter > maxRssBefore ? Math.max(peakRss, maxRssAfter) : peakRss;
    const growthMib = (highWater - baselineRss) / MIB;
    const maxMs = Math.max(...during);
    console.log(
      `50 MB dialog: /healthz answered ${during.length} times during the download, ` +
        `max ${maxMs.toFixed(1)} ms (median ${median(during).toFixed(1)} ms); ` +
        `event-loop delay max ${(loop.max / 1e6).toFixed(1)} ms; ` +
        `RSS growth ${growthMib.toFixed(1)} MiB`,
    );
    expect(during.length).toBeGreaterThan(0);
    // Within a liveness probe's timeout (Kubernetes' default `timeoutSeconds: 1`): the
    // download never holds the event loop. How quickly it answers is not this test's.
    expect(maxMs).toBeLessThan(1_000);
    // Less than the dialog held three times over (a Buffer, its text and its parse).
    expect(growthMib).toBeLessThan(3 * DIALOG_MIB);
    // Read once, refused, not retried as a bad answer, and no Retry offered.
    expect(buttonValue(status, ACTIONS.retry)).toBeUndefined();
    const fetches = stack.emulator.stats.requests.filter((r) =>
      r.path.startsWith("/files/dialog/"),
    );
    expect(fetches).toHaveLength(1);
  });
});

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}
