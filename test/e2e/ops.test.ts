import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTIONS } from "../../src/slack/ids.ts";
import {
  ALICE,
  buttonValue,
  CHANNEL,
  eventually,
  SIGNING_SECRET,
  type Stack,
  startStack,
  statusMessage,
} from "../../support/e2e/stack.ts";
import {
  blockActionPayload,
  fileShareMessageEvent,
} from "../../support/fake-slack/slack-payloads.ts";
import { sendAction, sendEvent } from "../../support/fake-slack/slack-request.ts";
import { recordingBytes } from "../../support/fakes/recording-bytes.ts";
import { HAS_REDIS, redisUrl } from "../../support/helpers/redis-url.ts";
import { TcpProxy } from "../../support/helpers/tcp-proxy.ts";

/**
 * Prometheus text exposition: comments, or `name{labels} value`. Returns samples by name.
 * Values are read as Go's ParseFloat reads them, so `NaN` in any case (prom-client's
 * default metrics write `Nan` before the first event-loop sample).
 */
function parsePrometheus(text: string): Map<string, { labels: string; value: number }[]> {
  const samples = new Map<string, { labels: string; value: number }[]>();
  for (const line of text.split("\n")) {
    if (line === "" || /^# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .+$/.test(line)) continue;
    const match =
      /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (-?[0-9.e+-]+|[Nn][Aa][Nn]|\+Inf|-Inf)$/.exec(line);
    if (match === null) throw new Error(`not Prometheus text: ${line}`);
    const [, name = "", labels = "", value = ""] = match;
    samples.set(name, [...(samples.get(name) ?? []), { labels, value: Number(value) }]);
  }
  return samples;
}

describe("health, readiness and metrics", () => {
  let stack: Stack;
  let base: string;
  beforeAll(async () => {
    stack = await startStack();
    base = stack.url.replace("/slack/events", "");
  });
  afterAll(() => stack.stop());

  it("answers /healthz and /readyz once up", async () => {
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ ok: true, store: true, slack: true, disk: true });
  });

  it("serves Prometheus text that counts a finished job", async () => {
    const file = stack.fake.addFile({
      name: "metrics.mp3",
      bytes: recordingBytes("metrics.mp3", 512, 1),
      user: ALICE,
    });
    const message = stack.fake.shareFile(file, { channel: CHANNEL, user: ALICE });
    const event = fileShareMessageEvent(file, { channel: CHANNEL, user: ALICE, ts: message.ts });
    await sendEvent(stack.url, SIGNING_SECRET, event, { teamId: stack.fake.teamId });
    const status = await eventually(
      () => statusMessage(stack.thread(message.ts)),
      (m) => buttonValue(m, ACTIONS.skipNaming) !== undefined,
    );
    const jobId = buttonValue(status, ACTIONS.skipNaming) ?? "";
    // A scrape counts from the stage index: it reads no job record, however many there are.
    // (Once the naming step is over: it reads the job again after its prompt is on screen.)
    await stack.settled();
    const store = stack.app.store;
    const get = store.get.bind(store);
    const jobReads: string[] = [];
    store.get = <T>(ns: Parameters<typeof get>[0], key: string) => {
      if (ns === "jobs") jobReads.push(key);
      return get<T>(ns, key);
    };
    const during = parsePrometheus(await (await fetch(`${base}/metrics`)).text());
    store.get = get;
    expect(jobReads).toEqual([]);
    expect(during.get("meeting_notes_jobs")).toContainEqual({
      labels: '{stage="naming"}',
      value: 1,
    });
    expect(during.get("meeting_notes_jobs")).toContainEqual({
      labels: '{stage="transcribing"}',
      value: 0,
    });
    await sendAction(
      stack.url,
      SIGNING_SECRET,
      blockActionPayload({
        actionId: ACTIONS.skipNaming,
        value: jobId,
        user: ALICE,
        channel: CHANNEL,
        messageTs: status?.ts ?? "",
      }),
    );
    await eventually(
      () => stack.job(jobId),
      (job) => job?.stage === "done",
    );
    // The store says "done" a moment before the runner has counted it (the save has more
    // than one write): poll the counter rather than read it once.
    const metrics = await eventually(
      async () => parsePrometheus(await (await fetch(`${base}/metrics`)).text()),
      (m) =>
        m
          .get("meeting_notes_jobs_finished_total")
          ?.some((s) => s.labels === '{stage="done"}' && s.value === 1) === true,
    );
    const response = await fetch(`${base}/metrics`);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
    const requests = metrics.get("meeting_notes_note_service_requests_total") ?? [];
    expect(requests.find((s) => s.labels.includes('operation="POST audio2dialog"'))?.value).toBe(1);
    expect(metrics.get("meeting_notes_stage_duration_seconds_count")?.length).toBeGreaterThan(0);
    expect(metrics.get("meeting_notes_runner_jobs")).toBeDefined();
  });
});

describe.skipIf(!HAS_REDIS)("readiness with Redis", () => {
  it("is not ready while the store is unreachable, and ready again when it is back", async () => {
    const redis = new URL(redisUrl());
    const proxy = new TcpProxy({ host: redis.hostname, port: Number(redis.port || 6379) });
    await proxy.start();
    const stack = await startStack({ STORE_URL: `redis://127.0.0.1:${proxy.port}/7` });
    const base = stack.url.replace("/slack/events", "");
    try {
      expect((await fetch(`${base}/readyz`)).status).toBe(200);
      await proxy.stop();
      // The next store probe fails (a fifth of a second in the stack).
      const down = await eventually(
        () => fetch(`${base}/readyz`),
        (r) => r.status === 503,
      );
      expect(await down.json()).toMatchObject({ ok: false, store: false });
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      await proxy.start();
      await eventually(
        () => fetch(`${base}/readyz`).then((r) => r.status),
        (status) => status === 200,
      );
    } finally {
      await proxy.start().catch(() => undefined);
      await stack.stop();
      await proxy.stop();
    }
  });
});

describe("METRICS_PORT", () => {
  it("serves /metrics on its own port only, with the process metrics, and 404 on the main port", async () => {
    const stack = await startStack({ METRICS_PORT: "0" });
    try {
      const base = stack.url.replace("/slack/events", "");
      const metricsPort = stack.app.metricsPort;
      expect(metricsPort).toEqual(expect.any(Number));
      expect(metricsPort).not.toBe(Number(new URL(base).port));
      expect((await fetch(`${base}/metrics`)).status).toBe(404);
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      const response = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
      expect(response.status).toBe(200);
      const metrics = parsePrometheus(await response.text());
      expect(metrics.get("meeting_notes_runner_jobs")).toBeDefined();
      expect(metrics.get("process_resident_memory_bytes")?.[0]?.value).toBeGreaterThan(0);
      expect(metrics.get("nodejs_eventloop_lag_seconds")).toBeDefined();
      // Nothing else lives on the metrics port.
      expect((await fetch(`http://127.0.0.1:${metricsPort}/healthz`)).status).toBe(404);
      expect(
        (await fetch(`http://127.0.0.1:${metricsPort}/slack/events`, { method: "POST" })).status,
      ).toBe(404);
    } finally {
      await stack.stop();
    }
  });
});
