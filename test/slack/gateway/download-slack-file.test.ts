import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  downloadSlackFile,
  SlackDownloadError,
  slackHostsOf,
} from "../../../src/slack/gateway/download-slack-file.ts";
import { createFakeSlack, type FakeSlack } from "../../fakes/slack/create-fake-slack.ts";
import { makeTempDir } from "../../helpers/temp-files.ts";

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
const isSlackHost = (host: string) => host.startsWith("127.0.0.1:");

describe("downloadSlackFile", () => {
  it("streams the file with the bot token", async () => {
    const file = fake.addFile({ name: "sync.mp3", bytes });
    const dest = join(temp.dir, "a.mp3");
    const size = await downloadSlackFile({
      url: file.url_private_download,
      token: fake.botToken,
      isSlackHost,
      destPath: dest,
      maxBytes: 10_000,
      expectedBytes: bytes.length,
    });
    expect(size).toBe(bytes.length);
    expect(await readFile(dest)).toEqual(bytes);
  });

  it("refuses the HTML login page Slack serves to a bad token", async () => {
    const file = fake.addFile({ name: "sync.mp3", bytes });
    await expect(
      downloadSlackFile({
        url: file.url_private_download,
        token: "xoxb-wrong",
        isSlackHost,
        destPath: join(temp.dir, "b.mp3"),
        maxBytes: 10_000,
      }),
    ).rejects.toThrow(/login page/);
  });

  it("follows a redirect to another host without the token", async () => {
    fake.knobs.redirectDownloads = true;
    const file = fake.addFile({ name: "sync.mp3", bytes });
    const size = await downloadSlackFile({
      url: file.url_private_download,
      token: fake.botToken,
      isSlackHost,
      destPath: join(temp.dir, "c.mp3"),
      maxBytes: 10_000,
    });
    expect(size).toBe(bytes.length);
    const cdn = fake.downloads.filter((d) => d.origin === "cdn");
    expect(cdn.length).toBeGreaterThan(0);
    for (const download of cdn) expect(download.headers.authorization).toBeUndefined();
    const slack = fake.downloads.filter((d) => d.origin === "slack");
    expect(slack[0]?.headers.authorization).toBe(`Bearer ${fake.botToken}`);
  });

  it("refuses a file over the cap and a cut-off download, leaving no file behind", async () => {
    const file = fake.addFile({ name: "big.mp3", bytes });
    const dest = join(temp.dir, "d.mp3");
    const error = await downloadSlackFile({
      url: file.url_private_download,
      token: fake.botToken,
      isSlackHost,
      destPath: dest,
      maxBytes: 100,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SlackDownloadError);
    expect((error as SlackDownloadError).transient).toBe(false);
    await expect(readFile(dest)).rejects.toThrow();

    fake.knobs.truncateDownloadAt = 50;
    const cut = await downloadSlackFile({
      url: file.url_private_download,
      token: fake.botToken,
      isSlackHost,
      destPath: dest,
      maxBytes: 10_000,
      expectedBytes: bytes.length,
    }).catch((e: unknown) => e);
    expect(cut).toBeInstanceOf(SlackDownloadError);
    expect((cut as SlackDownloadError).transient).toBe(true);
  });

  it("never sends the token to a host that is not Slack's", async () => {
    const isSlack = slackHostsOf("https://slack.com/api/");
    expect(isSlack("files.slack.com")).toBe(true);
    expect(isSlack("slack.com")).toBe(true);
    expect(isSlack("evilslack.com")).toBe(false);
    expect(isSlack("slack.com.evil.test")).toBe(false);
    const file = fake.addFile({ name: "sync.mp3", bytes });
    const before = fake.downloads.length;
    await expect(
      downloadSlackFile({
        url: file.url_private_download,
        token: fake.botToken,
        isSlackHost: isSlack,
        destPath: join(temp.dir, "e.mp3"),
        maxBytes: 10_000,
      }),
    ).rejects.toThrow(/not on Slack's servers/);
    expect(fake.downloads.length).toBe(before);
  });
});
