import { createWriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { type Dispatcher, getGlobalDispatcher, request } from "undici";

/** Why a Slack file could not be downloaded; `transient` says whether trying again can help. */
export class SlackDownloadError extends Error {
  readonly code = "slack_download_failed";
  readonly transient: boolean;

  constructor(message: string, transient: boolean, options?: { cause?: unknown }) {
    super(message, options);
    this.name = this.constructor.name;
    this.transient = transient;
  }
}

export interface DownloadOptions {
  url: string;
  token: string;
  /** Whether a host is Slack's: the token is never sent anywhere else. */
  isSlackHost: (host: string) => boolean;
  destPath: string;
  /** Refuse anything larger (a recording is at most 300 MB). */
  maxBytes: number;
  /** The size Slack reported, when known: a shorter body means a cut download. */
  expectedBytes?: number;
  signal?: AbortSignal;
  dispatcher?: Dispatcher;
  timeoutMs?: number;
}

const MAX_REDIRECTS = 5;
const WRITE_BUFFER_BYTES = 1024 * 1024;

/**
 * A host test for the Slack deployment the bot talks to: the API's own host (with its
 * port) and its subdomains (`slack.com` → `files.slack.com`; GovSlack and test servers
 * alike). It is given `URL.host`.
 */
export function slackHostsOf(apiUrl: string): (host: string) => boolean {
  const apiHost = new URL(apiUrl).host;
  return (host) => host === apiHost || host.endsWith(`.${apiHost}`);
}

/**
 * Streams a Slack file to disk with the bot token. The token is sent only to the file URL's
 * own origin: a redirect to another host is followed without it. Slack answers an
 * unauthenticated download with 200 and an HTML login page, so an HTML body is refused.
 */
export async function downloadSlackFile(options: DownloadOptions): Promise<number> {
  const first = new URL(options.url);
  if (!options.isSlackHost(first.host)) {
    // A file object names its own URL; one that is not on Slack's servers gets no token.
    throw new SlackDownloadError(`The file link is not on Slack's servers (${first.host}).`, false);
  }
  const tokenOrigin = first.origin;
  let url = new URL(options.url);
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    if (url.protocol !== "https:" && url.protocol !== "http:") {
      throw new SlackDownloadError("The file link is not an http(s) URL.", false);
    }
    const response = await request(url, {
      method: "GET",
      dispatcher: options.dispatcher ?? getGlobalDispatcher(),
      headers: url.origin === tokenOrigin ? { authorization: `Bearer ${options.token}` } : {},
      headersTimeout: options.timeoutMs ?? 60_000,
      bodyTimeout: options.timeoutMs ?? 60_000,
      signal: options.signal ?? null,
    }).catch((cause: unknown) => {
      if (options.signal?.aborted) throw cause;
      throw new SlackDownloadError("Slack could not be reached to download the file.", true, {
        cause,
      });
    });
    const { statusCode, headers, body } = response;
    if (statusCode >= 300 && statusCode < 400 && typeof headers.location === "string") {
      await body.dump();
      url = new URL(headers.location, url);
      continue;
    }
    if (statusCode !== 200) {
      await body.dump();
      const transient = statusCode === 429 || statusCode >= 500;
      throw new SlackDownloadError(`Slack answered ${statusCode} to the file download.`, transient);
    }
    const type = String(headers["content-type"] ?? "");
    if (type.includes("text/html")) {
      await body.dump();
      throw new SlackDownloadError(
        "Slack returned a login page instead of the file (missing files:read scope or token).",
        false,
      );
    }
    return writeCapped(body, options);
  }
  throw new SlackDownloadError("The file link redirected too many times.", false);
}

async function writeCapped(body: AsyncIterable<Uint8Array>, options: DownloadOptions) {
  let total = 0;
  // 1 MiB buffers: with the 16 KiB default each network chunk was written on its own and
  // reading paused in between (a 300 MB download: 1.28 s → 0.87 s measured).
  const counter = new Transform({
    highWaterMark: WRITE_BUFFER_BYTES,
    transform(chunk: Buffer, _encoding, callback) {
      total += chunk.byteLength;
      if (total > options.maxBytes) {
        callback(new SlackDownloadError("The file is larger than a recording may be.", false));
      } else callback(null, chunk);
    },
  });
  try {
    await pipeline(
      body,
      counter,
      createWriteStream(options.destPath, { highWaterMark: WRITE_BUFFER_BYTES }),
      {
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      },
    );
  } catch (error) {
    await rm(options.destPath, { force: true });
    if (error instanceof SlackDownloadError || options.signal?.aborted) throw error;
    throw new SlackDownloadError("The file download was cut off.", true, { cause: error });
  }
  if (
    options.expectedBytes !== undefined &&
    options.expectedBytes > 0 &&
    total !== options.expectedBytes
  ) {
    await rm(options.destPath, { force: true });
    throw new SlackDownloadError(
      `The download has ${total} bytes where Slack announced ${options.expectedBytes}.`,
      true,
    );
  }
  return total;
}
