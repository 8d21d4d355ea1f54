import { STATUS_CODES } from "node:http";
import { StringDecoder } from "node:string_decoder";
import { type Dispatcher, request } from "undici";
import type { z } from "zod";
import {
  errorFromResponse,
  errorMessageOf,
  NoteTakerProtocolError,
  NoteTakerRefusedError,
  NoteTakerTransientError,
} from "./errors.ts";
import { parseRetryAfter } from "./retry-policy.ts";

export interface ApiTarget {
  baseUrl: string;
  apiKey: string;
  dispatcher: Dispatcher;
}

/** No envelope of the API is anywhere near this; a bigger answer is not the API's. */
const MAX_ENVELOPE_BYTES = 1024 * 1024;

/**
 * One API call: `X-API-Key`, a capped answer, and every failure turned into the error class
 * the retry and failure policies know (docs/note-service.md, "The gaps").
 */
export async function callApi<T>(
  target: ApiTarget,
  method: "GET" | "POST",
  path: string,
  schema: z.ZodType<T>,
  options: {
    headers?: Record<string, string>;
    body?: NodeJS.ReadableStream;
    timeoutMs: number;
    signal: AbortSignal | undefined;
    /** The longest wait for the answer once the body is sent (default a minute). */
    answerAfterBodyMs?: number;
  },
): Promise<T> {
  const deadline = answerDeadline(options.body, options.signal, options.answerAfterBodyMs);
  const response = await request(`${target.baseUrl}${path}`, {
    dispatcher: target.dispatcher,
    method,
    headers: { accept: "application/json", ...options.headers, "x-api-key": target.apiKey },
    ...(options.body === undefined ? {} : { body: options.body as never }),
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    signal: deadline.signal,
  }).then(
    (answer) => {
      deadline.clear();
      return answer;
    },
    (error: unknown) => {
      deadline.clear();
      throw deadline.passed() ? deadline.failure(error) : error;
    },
  );
  const text = await readTextCapped(
    response.body,
    MAX_ENVELOPE_BYTES,
    () => new NoteTakerProtocolError(`The answer is larger than ${MAX_ENVELOPE_BYTES} bytes.`),
  );
  const json = parseJsonOrUndefined(text);
  if (response.statusCode < 200 || response.statusCode > 299) {
    throw errorFromResponse({
      status: response.statusCode,
      body: json,
      // undici does not expose the reason phrase; the standard one for the code is as good.
      statusText: STATUS_CODES[response.statusCode] ?? "",
      retryAfterMs: parseRetryAfter(response.headers["retry-after"]),
      isPoll: method === "GET",
    });
  }
  if (typeof json === "object" && json !== null && (json as { ok?: unknown }).ok === false) {
    const message = errorMessageOf(json) ?? "The Note Service refused the request.";
    throw new NoteTakerRefusedError(message, { status: response.statusCode });
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw new NoteTakerProtocolError(`Unexpected answer to ${method} ${path.split("/")[1]}.`, {
      status: response.statusCode,
      cause: parsed.error,
    });
  }
  return parsed.data;
}

/** The service answers a submission at once (202): a minute covers a slow one. */
export const ANSWER_AFTER_BODY_MS = 60_000;

/**
 * A deadline for the answer that starts once `body` is sent: undici's header timeout runs from
 * the request's start, so an upload's would need the upload's whole length.
 */
function answerDeadline(
  body: NodeJS.ReadableStream | undefined,
  outer: AbortSignal | undefined,
  ms = ANSWER_AFTER_BODY_MS,
) {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  body?.once("end", () => {
    timer = setTimeout(() => controller.abort(), ms);
  });
  const signals = [controller.signal, ...(outer === undefined ? [] : [outer])];
  return {
    signal: body === undefined ? (outer ?? null) : AbortSignal.any(signals),
    /** Whether the deadline, not the caller, ended the request. */
    passed: () => controller.signal.aborted && outer?.aborted !== true,
    failure: (cause: unknown) =>
      new NoteTakerTransientError(
        `The Note Service did not answer within ${ms / 1000} s of the request being sent.`,
        { cause },
      ),
    /** The answer's headers came: the deadline no longer applies. */
    clear: () => clearTimeout(timer),
  };
}

/** A body as UTF-8 text, decoded as it comes; past `maxBytes` it stops and throws `tooLarge()`. */
export async function readTextCapped(
  body: AsyncIterable<Uint8Array> & { destroy(error?: Error): unknown },
  maxBytes: number,
  tooLarge: () => Error,
): Promise<string> {
  const decoder = new StringDecoder("utf8");
  let text = "";
  let total = 0;
  for await (const chunk of body) {
    total += chunk.byteLength;
    if (total > maxBytes) {
      body.destroy();
      throw tooLarge();
    }
    text += decoder.write(chunk);
  }
  return text + decoder.end();
}

/** Parses JSON, or returns undefined: error bodies are often not JSON at all. */
export function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
