/**
 * A Note Service that takes a request's whole body and never answers: the fault suite found
 * each upload, and its job mid-download, held for the upload's 15-minute header timeout
 * (undici starts it with the request and puts it back only when a write meets
 * back-pressure). The answer now has its own deadline from the body's last byte.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { Agent } from "undici";
import { afterAll, beforeAll, expect, it } from "vitest";
import { z } from "zod";
import { callApi } from "../../src/notetaker/api-call.ts";
import { NoteTakerTransientError } from "../../src/notetaker/errors.ts";

let server: Server;
let baseUrl: string;
const dispatcher = new Agent();
beforeAll(async () => {
  // Reads every request to its end, then says nothing.
  server = createServer((req) => req.resume());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await dispatcher.close();
});

const post = (body: Readable, signal?: AbortSignal) =>
  callApi({ baseUrl, apiKey: "k", dispatcher }, "POST", "/audio2dialog", z.unknown(), {
    body,
    // The upload's own timeouts, as long as production's.
    timeoutMs: 15 * 60_000,
    signal,
    answerAfterBodyMs: 200,
  });

it("gives up on an answer that does not come within its deadline of the body's end, as transient", async () => {
  const started = performance.now();
  const error = await post(Readable.from([Buffer.alloc(64 * 1024, 1)])).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(NoteTakerTransientError);
  expect((error as Error).message).toContain("did not answer");
  expect(performance.now() - started).toBeLessThan(5_000);
});

it("leaves a caller's own abort as the caller's", async () => {
  const controller = new AbortController();
  const body = new Readable({ read() {} });
  const sent = post(body, controller.signal).catch((e: unknown) => e);
  controller.abort(new Error("canceled by a person"));
  expect(await sent).not.toBeInstanceOf(NoteTakerTransientError);
});
