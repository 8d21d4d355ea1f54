import { rm } from "node:fs/promises";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { type Dispatcher, getGlobalDispatcher, request } from "undici";
import { isDiskFull } from "../../jobs/index.ts";
import { isTransientStatus } from "../../util/backoff.ts";
import { optional } from "../../util/optional.ts";
import { fileSink, type OpenFile, openForWrite, WRITE_BUFFER_BYTES } from "./file-sink.ts";

/** What went wrong, by what a person can do about it, and whether it passes by itself. */
const PASSES = {
  unavailable: true,
  cut_off: true,
  disk_full: true,
  vanished: true,
  refused: false,
  failed: false,
} as const;
export type DownloadTrouble = keyof typeof PASSES;

export class SlackDownloadError extends Error {
  readonly code = "slack_download_failed";
  readonly trouble: DownloadTrouble;
  readonly transient: boolean;

  constructor(message: string, trouble: DownloadTrouble, options?: { cause?: unknown }) {
    super(message, options);
    this.name = this.constructor.name;
    this.trouble = trouble;
    this.transient = PASSES[trouble];
  }
}

const REFUSED_STATUSES = new Set([401, 403, 404, 410]);

export interface SlackHosts {
  includes(host: string): boolean;
  /** Only when `SLACK_API_URL` itself is http (a local test double). */
  readonly allowHttp: boolean;
}

export interface SlackFileRequest {
  url: string;
  token: string;
  /** The token goes to these hosts only; a file or redirect anywhere else is refused. */
  hosts: SlackHosts;
  maxBytes: number;
  signal?: AbortSignal;
  dispatcher?: Dispatcher;
  timeoutMs?: number;
}

export interface DownloadOptions extends SlackFileRequest {
  destPath: string;
  /** A shorter body means a cut download. */
  expectedBytes?: number;
  onWritten?: (bytes: number) => void;
  openFile?: OpenFile;
}

const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * The API's host and its subdomains (`files.slack.com`, `files-origin.slack.com`; GovSlack alike).
 */
export function slackHostsOf(apiUrl: string): SlackHosts {
  const api = new URL(apiUrl);
  return {
    includes: (host) => host === api.host || host.endsWith(`.${api.host}`),
    allowHttp: api.protocol === "http:",
  };
}

/** Streams a recording to disk, never held in memory. */
export async function downloadSlackFile(options: DownloadOptions): Promise<number> {
  const body = await openSlackFile(options);
  return writeCapped(body, options);
}

export async function readSlackFile(options: SlackFileRequest): Promise<Uint8Array> {
  const body = await openSlackFile(options);
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.byteLength;
    if (total > options.maxBytes) {
      body.destroy();
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

/**
 * File URLs need `Authorization: Bearer` with `files:read` (https://api.slack.com/types/file#auth).
 * Enterprise Grid redirects to other Slack hosts, so redirects are followed with the token only
 * while they stay on Slack's hosts over https.
 */
async function openSlackFile(options: SlackFileRequest): Promise<Dispatcher.ResponseData["body"]> {
  let url = parseUrl(options.url);
  for (let hop = 0; ; hop++) {
    checkSlackUrl(url, options.hosts, hop > 0);
    const response = await get(url, options);
    const { statusCode, headers, body } = response;
    if (REDIRECT_STATUSES.has(statusCode) && typeof headers.location === "string") {
      await body.dump();
      if (hop >= MAX_REDIRECTS) {
        throw new SlackDownloadError("The file link redirected too many times.", "failed");
      }
      url = parseUrl(headers.location, url);
      continue;
    }
    if (statusCode !== 200) {
      await body.dump();
      const trouble = isTransientStatus(statusCode)
        ? "unavailable"
        : REFUSED_STATUSES.has(statusCode)
          ? "refused"
          : "failed";
      throw new SlackDownloadError(`Slack answered ${statusCode} to the file download.`, trouble);
    }
    if (String(headers["content-type"] ?? "").includes("text/html")) {
      await body.dump();
      throw new SlackDownloadError(
        "Slack returned a login page instead of the file (missing files:read scope or token).",
        "failed",
      );
    }
    if (Number(headers["content-length"]) > options.maxBytes) {
      // dump() closes at once a body declared over its 128 KiB limit, without an error event.
      await body.dump();
      throw tooLarge();
    }
    return body;
  }
}

function checkSlackUrl(url: URL, hosts: SlackHosts, redirected: boolean): void {
  const where = redirected ? "The file link redirected" : "The file link is";
  if (!hosts.includes(url.host)) {
    throw new SlackDownloadError(`${where} off Slack's servers (${url.host}).`, "failed");
  }
  const secure = url.protocol === "https:" || (hosts.allowHttp && url.protocol === "http:");
  if (!secure) {
    throw new SlackDownloadError(`${where} not https (${url.protocol}//${url.host}).`, "failed");
  }
}

async function get(url: URL, options: SlackFileRequest) {
  return request(url, {
    method: "GET",
    dispatcher: options.dispatcher ?? getGlobalDispatcher(),
    headers: { authorization: `Bearer ${options.token}` },
    headersTimeout: options.timeoutMs ?? 60_000,
    bodyTimeout: options.timeoutMs ?? 60_000,
    signal: options.signal ?? null,
  }).catch((cause: unknown) => {
    if (options.signal?.aborted) throw cause;
    throw new SlackDownloadError(
      "Slack could not be reached to download the file.",
      "unavailable",
      { cause },
    );
  });
}

function parseUrl(url: string, base?: URL): URL {
  if (!URL.canParse(url, base?.href)) {
    throw new SlackDownloadError("The file link is not a URL.", "failed");
  }
  return new URL(url, base);
}

function tooLarge(): SlackDownloadError {
  return new SlackDownloadError("The file is larger than it may be.", "failed");
}

async function writeCapped(body: AsyncIterable<Uint8Array>, options: DownloadOptions) {
  let total = 0;
  // Large buffers: fewer writes, and reading does not pause between them.
  const counter = new Transform({
    highWaterMark: WRITE_BUFFER_BYTES,
    transform(chunk: Buffer, _encoding, callback) {
      total += chunk.byteLength;
      if (total > options.maxBytes) callback(tooLarge());
      else callback(null, chunk);
    },
  });
  const sink = fileSink(options.destPath, options.openFile ?? openForWrite, options.onWritten);
  try {
    await pipeline(body, counter, sink.stream, {
      ...optional("signal", options.signal),
    });
  } catch (error) {
    await rm(options.destPath, { force: true });
    if (error instanceof SlackDownloadError || options.signal?.aborted) throw error;
    throw writeTrouble(error, sink.failed);
  }
  if (
    options.expectedBytes !== undefined &&
    options.expectedBytes > 0 &&
    total !== options.expectedBytes
  ) {
    await rm(options.destPath, { force: true });
    throw new SlackDownloadError(
      `The download has ${total} bytes where Slack announced ${options.expectedBytes}.`,
      "cut_off",
    );
  }
  return total;
}

/** The disk when the file's side failed, else the body stopped early. */
function writeTrouble(error: unknown, diskFailed: boolean): SlackDownloadError {
  if (isDiskFull(error)) {
    return new SlackDownloadError("The disk is full.", "disk_full", { cause: error });
  }
  if ((error as NodeJS.ErrnoException | undefined)?.code === "ENOENT") {
    return new SlackDownloadError("The file being written vanished.", "vanished", { cause: error });
  }
  if (diskFailed) {
    return new SlackDownloadError("The download could not be written.", "failed", { cause: error });
  }
  return new SlackDownloadError("The file download was cut off.", "cut_off", { cause: error });
}
