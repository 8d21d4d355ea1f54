import { LogLevel, WebClient } from "@slack/web-api";
import { pino } from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { MAX_TEMPLATE_BYTES } from "../../src/notetaker/index.ts";
import { slackHostsOf } from "../../src/slack/gateway/download-slack-file.ts";
import { SlackDirectory } from "../../src/slack/slack-directory.ts";
import { createFakeSlack, type FakeSlack } from "../fakes/slack/create-fake-slack.ts";

let fake: FakeSlack;
let directory: SlackDirectory;
beforeAll(async () => {
  fake = await createFakeSlack();
  directory = new SlackDirectory({
    client: new WebClient(fake.botToken, {
      slackApiUrl: fake.apiUrl,
      retryConfig: { retries: 0 },
      logLevel: LogLevel.ERROR,
    }),
    botToken: fake.botToken,
    slackHosts: slackHostsOf(fake.apiUrl),
    logger: pino({ level: "silent" }),
  });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const docx = Buffer.concat([Buffer.from("PK\u0003\u0004", "latin1"), Buffer.alloc(2000, 9)]);

describe("SlackDirectory.smallFile", () => {
  it("reads a template into memory with the bot token", async () => {
    const file = fake.addFile({ name: "template.docx", bytes: docx });
    const got = await directory.smallFile(file.id);
    expect(got?.filename).toBe("template.docx");
    expect(Buffer.from(got?.data ?? []).equals(docx)).toBe(true);
    expect(fake.downloads.map((d) => d.headers.authorization)).toEqual([`Bearer ${fake.botToken}`]);
  });

  it("follows a redirect within Slack but not one off it", async () => {
    const file = fake.addFile({ name: "template.docx", bytes: docx });
    fake.knobs.redirectDownloads = "slack";
    const got = await directory.smallFile(file.id);
    expect(Buffer.from(got?.data ?? []).equals(docx)).toBe(true);
    fake.reset();
    fake.knobs.redirectDownloads = "cdn";
    expect(await directory.smallFile(file.id)).toBeUndefined();
    expect(fake.downloads.map((d) => d.origin)).toEqual(["slack"]);
  });

  it("gives up on a file larger than 10 MB even when Slack announced it smaller", async () => {
    const big = Buffer.alloc(MAX_TEMPLATE_BYTES + 1, 1);
    const file = fake.addFile({ name: "huge.docx", bytes: big, size: 1000 });
    expect(await directory.smallFile(file.id)).toBeUndefined();
  });
});

describe("SlackDirectory.user", () => {
  it("gives a member's name without invisible or bidi characters", async () => {
    fake.addUser({ id: "U0RLO0001", name: "lan", real_name: "\u202Enohtyp\u202C Lan\u200B" });
    expect((await directory.user("U0RLO0001")).name).toBe("nohtyp Lan");
  });

  it("passes over a name that is only invisible characters", async () => {
    fake.addUser({
      id: "U0BLANK01",
      name: "minh",
      real_name: "\u200B\u2066\u2069",
      display_name: "\u3164",
    });
    expect((await directory.user("U0BLANK01")).name).toBe("minh");
  });
});
