import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { MockAgent } from "undici";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  downloadSlackFile,
  readSlackFile,
  SlackDownloadError,
  slackHostsOf,
} from "../../../src/slack/gateway/download-slack-file.ts";
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
/** The fake's own hosts, as the app derives them from `SLACK_API_URL`. */
const hosts = () => slackHostsOf(fake.apiUrl);
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.fail("expected the download to fail"),
    (error: unknown) => {
      expect(error).toBeInstanceOf(SlackDownloadError);
      return error as SlackDownloadError;
    },
  );

describe("downloadSlackFile", () => {
  it("streams the file with the bot token", async () => {
    const file = fake.addFile({ name: "sync.mp3", bytes });
    const dest = join(temp.dir, "a.mp3");
    const size = await downloadSlackFile({
      url: file.url_private_download,
      token: fake.botToken,
      hosts: hosts(),
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
        hosts: hosts(),
        destPath: join(temp.dir, "b.mp3"),
        maxBytes: 10_000,
      }),
    ).rejects.toThrow(/login page/);
  });

  it("follows a redirect that stays on Slack's hosts, with the token on every hop", async () => {
    fake.knobs.redirectDownloads = "slack";
    const file = fake.addFile({ name: "sync.mp3", bytes });
    const size = await downloadSlackFile({
      url: file.url_private_download,
      token: fake.botToken,
      hosts: hosts(),
      destPath: join(temp.dir, "c.mp3"),
      maxBytes: 10_000,
    });
    expect(size).toBe(bytes.length);
    expect(fake.downloads.map((d) => [d.path.split("/")[1], d.status, d.served])).toEqual([
      ["files-pri", 302, false],
      ["files-origin", 200, true],
    ]);
    for (const download of fake.downloads) {
      expect(download.headers.authorization).toBe(`Bearer ${fake.botToken}`);
    }
  });

  it("refuses a redirect off Slack's hosts instead of following it without the token", async () => {
    fake.knobs.redirectDownloads = "cdn";
    const file = fake.addFile({ name: "sync.mp3", bytes });
    const dest = join(temp.dir, "off.mp3");
    const error = await failure(
      downloadSlackFile({
        url: file.url_private_download,
        token: fake.botToken,
        hosts: hosts(),
        destPath: dest,
        maxBytes: 10_000,
      }),
    );
    expect(error.message).toMatch(/redirected off Slack's servers/);
    expect(error.transient).toBe(false);
    expect(fake.downloads.map((d) => d.origin)).toEqual(["slack"]);
    await expect(readFile(dest)).rejects.toThrow();
  });

  it("refuses a file over the cap and a cut-off download, leaving no file behind", async () => {
    const file = fake.addFile({ name: "big.mp3", bytes });
    const dest = join(temp.dir, "d.mp3");
    const error = await failure(
      downloadSlackFile({
        url: file.url_private_download,
        token: fake.botToken,
        hosts: hosts(),
        destPath: dest,
        maxBytes: 100,
      }),
    );
    expect(error.transient).toBe(false);
    await expect(readFile(dest)).rejects.toThrow();

    fake.knobs.truncateDownloadAt = 50;
    const cut = await failure(
      downloadSlackFile({
        url: file.url_private_download,
        token: fake.botToken,
        hosts: hosts(),
        destPath: dest,
        maxBytes: 10_000,
        expectedBytes: bytes.length,
      }),
    );
    expect(cut.transient).toBe(true);
  });

  it("never sends the token to a host that is not Slack's", async () => {
    const isSlack = slackHostsOf("https://slack.com/api/");
    expect(isSlack.includes("files.slack.com")).toBe(true);
    expect(isSlack.includes("slack.com")).toBe(true);
    expect(isSlack.includes("evilslack.com")).toBe(false);
    expect(isSlack.includes("slack.com.evil.test")).toBe(false);
    const file = fake.addFile({ name: "sync.mp3", bytes });
    await expect(
      downloadSlackFile({
        url: file.url_private_download,
        token: fake.botToken,
        hosts: isSlack,
        destPath: join(temp.dir, "e.mp3"),
        maxBytes: 10_000,
      }),
    ).rejects.toThrow(/off Slack's servers/);
    expect(fake.downloads).toEqual([]);
  });

  it("never sends the token over http unless the API URL itself is http", async () => {
    expect(slackHostsOf("https://slack.com/api/").allowHttp).toBe(false);
    expect(slackHostsOf(fake.apiUrl).allowHttp).toBe(true);
    // Same host and port as the fake, but the deployment says https: its http file URL is refused.
    const strict = slackHostsOf(fake.apiUrl.replace("http:", "https:"));
    expect(strict.includes(new URL(fake.apiUrl).host)).toBe(true);
    const file = fake.addFile({ name: "sync.mp3", bytes });
    await expect(
      downloadSlackFile({
        url: file.url_private_download,
        token: fake.botToken,
        hosts: strict,
        destPath: join(temp.dir, "f.mp3"),
        maxBytes: 10_000,
      }),
    ).rejects.toThrow(/not https/);
    expect(fake.downloads).toEqual([]);
  });
});

describe("redirects on real Slack hosts (MockAgent)", () => {
  const FILE = "/files-pri/T0-F0/download/sync.mp3";

  function slack() {
    const agent = new MockAgent();
    agent.disableNetConnect();
    const seen: { origin: string; authorization: unknown }[] = [];
    const record = (origin: string) => (opts: { headers?: unknown }) => {
      const headers = (opts.headers ?? {}) as Record<string, string>;
      seen.push({ origin, authorization: headers.authorization });
    };
    return { agent, seen, record };
  }

  it("carries the token from files.slack.com to files-origin.slack.com over https", async () => {
    const { agent, seen, record } = slack();
    agent
      .get("https://files.slack.com")
      .intercept({ path: FILE })
      .reply((opts) => {
        record("files.slack.com")(opts);
        return {
          statusCode: 302,
          data: "",
          responseOptions: { headers: { location: "https://files-origin.slack.com/x/sync.mp3" } },
        };
      });
    agent
      .get("https://files-origin.slack.com")
      .intercept({ path: "/x/sync.mp3" })
      .reply((opts) => {
        record("files-origin.slack.com")(opts);
        return { statusCode: 200, data: "audio" };
      });
    const data = await readSlackFile({
      url: `https://files.slack.com${FILE}`,
      token: "xoxb-secret",
      hosts: slackHostsOf("https://slack.com/api/"),
      maxBytes: 100,
      dispatcher: agent,
    });
    expect(Buffer.from(data).toString()).toBe("audio");
    expect(seen).toEqual([
      { origin: "files.slack.com", authorization: "Bearer xoxb-secret" },
      { origin: "files-origin.slack.com", authorization: "Bearer xoxb-secret" },
    ]);
  });

  it.each([
    ["http://files.slack.com/x/sync.mp3", /not https/],
    ["https://slack-files.com/x/sync.mp3", /off Slack's servers/],
    ["https://attacker.example/x/sync.mp3", /off Slack's servers/],
  ])("refuses a redirect to %s without requesting it", async (location, message) => {
    const { agent } = slack();
    agent
      .get("https://files.slack.com")
      .intercept({ path: FILE })
      .reply(302, "", { headers: { location } });
    const target = new URL(location);
    agent.get(target.origin).intercept({ path: target.pathname }).reply(200, "audio");
    await expect(
      readSlackFile({
        url: `https://files.slack.com${FILE}`,
        token: "xoxb-secret",
        hosts: slackHostsOf("https://slack.com/api/"),
        maxBytes: 100,
        dispatcher: agent,
      }),
    ).rejects.toThrow(message);
    expect(agent.pendingInterceptors().map((i) => i.origin)).toEqual([target.origin]);
  });

  it("stops reading a small file at its cap", async () => {
    const { agent } = slack();
    agent
      .get("https://files.slack.com")
      .intercept({ path: FILE })
      .reply(200, Buffer.alloc(5000, 1));
    await expect(
      readSlackFile({
        url: `https://files.slack.com${FILE}`,
        token: "xoxb-secret",
        hosts: slackHostsOf("https://slack.com/api/"),
        maxBytes: 1000,
        dispatcher: agent,
      }),
    ).rejects.toThrow(/larger than it may be/);
  });
});
