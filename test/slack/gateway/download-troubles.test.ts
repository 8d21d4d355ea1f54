import { open, readdir } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SlackPortError } from "../../../src/jobs/index.ts";
import {
  type DownloadTrouble,
  downloadSlackFile,
  SlackDownloadError,
  slackHostsOf,
} from "../../../src/slack/gateway/download-slack-file.ts";
import type { OpenFile } from "../../../src/slack/gateway/file-sink.ts";
import { mayHaveHappened, toGatewayError } from "../../../src/slack/gateway/slack-errors.ts";
import { createFakeSlack, type FakeSlack } from "../../../support/fake-slack/create-fake-slack.ts";
import { makeTempDir } from "../../../support/helpers/temp-files.ts";

let fake: FakeSlack;
let temp: Awaited<ReturnType<typeof makeTempDir>>;
beforeAll(async () => {
  fake = await createFakeSlack();
  temp = await makeTempDir();
});
afterAll(async () => {
  await fake.close();
  await temp.cleanup();
});
beforeEach(() => fake.reset());

const bytes = Buffer.from("ID3 fake mp3 bytes ".repeat(100));

/** A write error as Node gives it. */
const writeError = (code: string) =>
  Object.assign(new Error(`${code}: write failed`), { code, syscall: "write" });

/** A temp file whose writes fail with `code`, as a full disk (or a worse one) makes them. */
const failingDisk =
  (code: string): OpenFile =>
  async (path) => {
    const handle = await open(path, "w", 0o600);
    return { writev: () => Promise.reject(writeError(code)), close: () => handle.close() };
  };

/** Downloads a fresh file of the fake; resolves with the error it failed with. */
async function troubleOf(options: { openFile?: OpenFile } = {}): Promise<SlackDownloadError> {
  const file = fake.addFile({ name: "sync.mp3", bytes });
  const error = await downloadSlackFile({
    url: file.url_private_download,
    token: fake.botToken,
    hosts: slackHostsOf(fake.apiUrl),
    destPath: join(temp.dir, "sync.mp3"),
    maxBytes: 10_000,
    expectedBytes: bytes.length,
    ...options,
  }).then(
    () => expect.fail("expected the download to fail"),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SlackDownloadError);
  return error as SlackDownloadError;
}

describe("what went wrong with a download", () => {
  it.each<[number, DownloadTrouble, boolean]>([
    [503, "unavailable", true],
    [502, "unavailable", true],
    [429, "unavailable", true],
    [404, "refused", false],
    [403, "refused", false],
    [410, "refused", false],
    [400, "failed", false],
  ])("Slack's file server answering %i: %s (transient: %s)", async (status, trouble, transient) => {
    fake.knobs.failDownloads = { status, count: 1 };
    const error = await troubleOf();
    expect({ trouble: error.trouble, transient: error.transient }).toEqual({ trouble, transient });
  });

  it("a body cut short: cut_off, tried again", async () => {
    fake.knobs.truncateDownloadAt = 50;
    const error = await troubleOf();
    expect({ trouble: error.trouble, transient: error.transient }).toEqual({
      trouble: "cut_off",
      transient: true,
    });
  });

  it("a full disk (ENOSPC, or a spent quota): disk_full, tried again, no file left", async () => {
    for (const code of ["ENOSPC", "EDQUOT"]) {
      const error = await troubleOf({ openFile: failingDisk(code) });
      expect({ trouble: error.trouble, transient: error.transient }).toEqual({
        trouble: "disk_full",
        transient: true,
      });
      expect(await readdir(temp.dir)).not.toContain("sync.mp3");
    }
  });

  it("a file removed from under the download (its folder swept): vanished, tried again", async () => {
    const gone: OpenFile = async () => {
      throw Object.assign(new Error("ENOENT: no such file or directory"), {
        code: "ENOENT",
        syscall: "open",
      });
    };
    const error = await troubleOf({ openFile: gone });
    expect({ trouble: error.trouble, transient: error.transient }).toEqual({
      trouble: "vanished",
      transient: true,
    });
    expect(error.message).not.toContain("could not be written");
  });

  it("another write error is the bot's own failure, not a cut download", async () => {
    const error = await troubleOf({ openFile: failingDisk("EIO") });
    expect({ trouble: error.trouble, transient: error.transient }).toEqual({
      trouble: "failed",
      transient: false,
    });
  });
});

describe("toGatewayError of a download", () => {
  it.each<[DownloadTrouble, boolean, string, string | undefined]>([
    ["unavailable", true, "download_unavailable", "slack_files"],
    ["cut_off", true, "download_cut", "slack_download_cut"],
    ["disk_full", true, "disk_full", "disk_full"],
    ["vanished", true, "download_failed", undefined],
    ["refused", false, "download_refused", undefined],
    ["failed", false, "download_failed", undefined],
  ])("%s keeps its nature and names its cause", (trouble, transient, failure, waiting) => {
    const error = toGatewayError(new SlackDownloadError("x", trouble), "file download");
    expect(error).toBeInstanceOf(SlackPortError);
    expect({ transient: error.transient, failure: error.failure, waiting: error.waiting }).toEqual({
      transient,
      failure,
      waiting,
    });
  });
});

describe("mayHaveHappened", () => {
  const webApi = (code: string, extra: Record<string, unknown> = {}) =>
    Object.assign(new Error(code), { code, ...extra });

  it("is false only when Slack said no (ok: false, 429) or nothing was sent", () => {
    const refused = webApi("slack_webapi_platform_error", { data: { error: "not_in_channel" } });
    expect(mayHaveHappened(refused)).toBe(false);
    expect(mayHaveHappened(webApi("slack_webapi_rate_limited_error"))).toBe(false);
    expect(mayHaveHappened(webApi("slack_webapi_file_upload_invalid_args_error"))).toBe(false);
  });

  it("is true for a lost answer: a reset or timeout, a 5xx, anything else", () => {
    expect(mayHaveHappened(webApi("slack_webapi_request_error"))).toBe(true);
    expect(mayHaveHappened(webApi("slack_webapi_http_error", { statusCode: 503 }))).toBe(true);
    expect(mayHaveHappened(new Error("chat.postMessage returned no ts"))).toBe(true);
  });
});
