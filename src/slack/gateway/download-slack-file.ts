import { rm } from "node:fs/promises";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { type Dispatcher, getGlobalDispatcher, request } from "undici";
import { isDiskFull } from "../../jobs/index.ts";
import { isTransientStatus } from "../../util/backoff.ts";
import { optional } from "../../util/optional.ts";
import { fileSink, type OpenFile, openForWrite, WRITE_BUFFER_BYTES } from "./file-sink.ts";

export type { OpenFile };

/**
 * What went wrong with a download, by what the person (or an admin) can do about it:
 * - `unavailable`: Slack's file server answered 5xx/408/429, could not be reached or timed out;
 * - `cut_off`: the body stopped before its end (a reset), or was shorter than announced;
 * - `disk_full`: the temp file could not be written for lack of space;
 * - `refused`: Slack will not let the bot read the file (401, 403, 404, 410);
 * - `vanished`: the file being written was removed from under the download (its folder
 *   swept, say): nothing is wrong with the recording, and a new try writes it again;
 * - `failed`: anything else trying again cannot change (a sign-in page, a link off Slack's
 *   servers, too large, another refusal), or a local write error that is not a full disk.
 * All but the last two clear up by themselves; the job waits and tries again.
 */
export type DownloadTrouble =
  | "unavailable"
  | "cut_off"
  | "disk_full"
  | "vanished"
  | "refused"
  | "failed";

const TRANSIENT_TROUBLE = new Set<DownloadTrouble>([
  "unavailable",
  "cut_off",
  "disk_full",
  "vanished",
]);

/** Why a Slack file could not be downloaded; `transient` says whether trying again can help. */
export class SlackDownloadError extends Error {
  readonly code = "slack_download_failed";
  readonly trouble: DownloadTrouble;
  readonly transient: boolean;

  constructor(message: string, trouble: DownloadTrouble, options?: { cause?: unknown }) {
    super(message, options);
    this.name = this.constructor.name;
    this.trouble = trouble;
    this.transient = TRANSIENT_TROUBLE.has(trouble);
  }
}

/** The statuses of a file Slack will not serve the bot: gone, or not shared with it. */
const REFUSED_STATUSES = new Set([401, 403, 404, 410]);

/** Slack's file hosts for the deployment the bot talks to, and the scheme they must use. */
export interface SlackHosts {
  /** Whether a host (`URL.host`, with its port) is Slack's. */
  includes(host: string): boolean;
  /** Plain http is accepted only when `SLACK_API_URL` itself is http (a local test double). */
  readonly allowHttp: boolean;
}

/** Where and how to fetch one Slack file. */
export interface SlackFileRequest {
  url: string;
  token: string;
  /** The token goes to these hosts only; a file or redirect anywhere else is refused. */
  hosts: SlackHosts;
  /** Refuse anything larger; reading stops the moment the body passes it. */
  maxBytes: number;
  signal?: AbortSignal;
  dispatcher?: Dispatcher;
  timeoutMs?: number;
}

export interface DownloadOptions extends SlackFileRequest {
  destPath: string;
  /** The size Slack reported, when known: a shorter body means a cut download. */
  expectedBytes?: number;
  /** Told the file's length after each write reaches the disk (a reader following it). */
  onWritten?: (bytes: number) => void;
  /** Opens the temp file (default: a new file, 0600). */
  openFile?: OpenFile;
}

const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * The hosts of the Slack deployment the bot talks to: the API's own host (with its port) and
 * its subdomains (`slack.com` → `files.slack.com`, `files-origin.slack.com`; GovSlack and
 * test servers alike).
 */
export function slackHostsOf(apiUrl: string): SlackHosts {
  const api = new URL(apiUrl);
  return {
    includes: (host) => host === api.host || host.endsWith(`.${api.host}`),
    allowHttp: api.protocol === "http:",
  };
}

/**
 * Streams a Slack file to disk with the bot token (a recording: up to 300 MB, never held in
 * memory), refusing it past `maxBytes` and when it is shorter than Slack announced.
 */
export async function downloadSlackFile(options: DownloadOptions): Promise<number> {
  const body = await openSlackFile(options);
  return writeCapped(body, options);
}

/** Reads a small Slack file (a DOCX template) into memory, stopping at `maxBytes`. */
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
 * GETs a Slack file with the bot token and hands back its body, once Slack answered 200 with
 * something that is not its sign-in page.
 *
 * What Slack says: `url_private` and `url_private_download` need `Authorization: Bearer`
 * with a `files:read` token (https://api.slack.com/types/file#auth, as Slack's maintainers
 * point to in slackapi/bolt-js#2585; Slack's platform blog, "Important Changes to Files in
 * the Web API", 2015). Slack documents no redirect. What bots that download files report:
 * `url_private_download` answers 200 directly; on Enterprise Grid files.slack.com answers
 * 302 to files-origin.slack.com, which still needs the token
 * (NousResearch/hermes-agent#114483); `url_private` of a PDF 302s to slack-files.com
 * (curie-eng/curie#2715). So redirects are followed, with the token, while they stay on
 * Slack's hosts (`slackHostsOf`: the API host and its subdomains) over https, and refused —
 * not followed without the token — when they leave them: a user's file comes from Slack or
 * not at all.
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

/** Refuses a URL the token must not travel to: off Slack's hosts, or not over https. */
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
      {
        cause,
      },
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
  // 1 MiB buffers: with the 16 KiB default each network chunk was written on its own and
  // reading paused in between (a 300 MB download: 1.28 s → 0.87 s measured).
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

/**
 * Why a download whose pipeline broke failed: the disk (full, or another write error) when
 * the file's side failed, else the body stopped early (a reset, a stalled body).
 */
function writeTrouble(error: unknown, diskFailed: boolean): SlackDownloadError {
  if (isDiskFull(error)) {
    return new SlackDownloadError("The disk is full.", "disk_full", { cause: error });
  }
  if ((error as NodeJS.ErrnoException | undefined)?.code === "ENOENT") {
    return new SlackDownloadError("The file being written vanished.", "vanished", {
      cause: error,
    });
  }
  if (diskFailed) {
    return new SlackDownloadError("The download could not be written.", "failed", {
      cause: error,
    });
  }
  return new SlackDownloadError("The file download was cut off.", "cut_off", { cause: error });
}
