import { LogLevel, WebClient } from "@slack/web-api";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SlackDirectory } from "../../src/slack/slack-directory.ts";
import { createFakeSlack, type FakeSlack } from "../fakes/slack/create-fake-slack.ts";

let fake: FakeSlack;
let directory: SlackDirectory;

beforeAll(async () => {
  fake = await createFakeSlack();
  const client = new WebClient(fake.botToken, {
    slackApiUrl: fake.apiUrl,
    retryConfig: { retries: 0 },
    logLevel: LogLevel.ERROR,
  });
  directory = new SlackDirectory({
    client,
    botToken: fake.botToken,
    isSlackHost: () => true,
    logger: pino({ level: "silent" }),
  });
});
afterAll(() => fake.close());

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
