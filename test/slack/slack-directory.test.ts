import { LogLevel, WebClient } from "@slack/web-api";
import { pino } from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { MAX_TEMPLATE_BYTES } from "../../src/notetaker/index.ts";
import {
  MAX_CACHED_USERS,
  SlackDirectory,
  USER_CACHE_TTL_MS,
} from "../../src/slack/directory/slack-directory.ts";
import { slackHostsOf } from "../../src/slack/gateway/download-slack-file.ts";
import { createFakeSlack, type FakeSlack } from "../../support/fake-slack/create-fake-slack.ts";
import { createFakeWebClient, slackUser } from "../../support/helpers/fake-web-client.ts";
import { defaultWorkspace } from "../../support/helpers/listener-args.ts";

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

/** The file as `files.info` describes it: what `smallFile` is given. */
async function described(fileId: string) {
  const file = await directory.file(fileId);
  if (file === undefined) throw new Error(`files.info has no ${fileId}`);
  return file;
}

const docx = Buffer.concat([Buffer.from("PK\u0003\u0004", "latin1"), Buffer.alloc(2000, 9)]);

describe("SlackDirectory.smallFile", () => {
  it("reads a template into memory with the bot token", async () => {
    const file = fake.addFile({ name: "template.docx", bytes: docx });
    const got = await directory.smallFile(await described(file.id));
    expect(got?.filename).toBe("template.docx");
    expect(Buffer.from(got?.data ?? []).equals(docx)).toBe(true);
    expect(fake.downloads.map((d) => d.headers.authorization)).toEqual([`Bearer ${fake.botToken}`]);
  });

  it("follows a redirect within Slack but not one off it", async () => {
    const file = fake.addFile({ name: "template.docx", bytes: docx });
    fake.knobs.redirectDownloads = "slack";
    const got = await directory.smallFile(await described(file.id));
    expect(Buffer.from(got?.data ?? []).equals(docx)).toBe(true);
    fake.reset();
    fake.knobs.redirectDownloads = "cdn";
    expect(await directory.smallFile(await described(file.id))).toBeUndefined();
    expect(fake.downloads.map((d) => d.origin)).toEqual(["slack"]);
  });

  it("gives up on a file larger than 10 MB even when Slack announced it smaller", async () => {
    const big = Buffer.alloc(MAX_TEMPLATE_BYTES + 1, 1);
    const file = fake.addFile({ name: "huge.docx", bytes: big, size: 1000 });
    expect(await directory.smallFile(await described(file.id))).toBeUndefined();
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

describe("SlackDirectory: roles and membership as they are now", () => {
  const membersCalls = () => fake.callsTo("conversations.members");

  it("asks users.info at every decision, while names and locales stay cached", async () => {
    fake.addUser({ id: "U0ADMNOW1", name: "ada", real_name: "Ada", is_admin: true });
    expect((await directory.user("U0ADMNOW1")).isAdmin).toBe(true);
    expect((await directory.userNow("U0ADMNOW1")).isAdmin).toBe(true);
    fake.addUser({ id: "U0ADMNOW1", name: "ada", real_name: "Ada", is_admin: false });
    expect((await directory.userNow("U0ADMNOW1")).isAdmin).toBe(false);
    // The name shown may be a few minutes old; that decides nothing.
    await directory.user("U0ADMNOW1");
    expect(fake.callsTo("users.info")).toHaveLength(3);
  });

  it("shares one users.info request between look-ups made at the same moment", async () => {
    fake.addUser({ id: "U0TWICE01", name: "twice", real_name: "Twice" });
    const [a, b] = await Promise.all([
      directory.userNow("U0TWICE01"),
      directory.userNow("U0TWICE01"),
    ]);
    expect(a).toEqual(b);
    expect(fake.callsTo("users.info")).toHaveLength(1);
  });

  it("sees a member removed a moment ago as out, at the very next check", async () => {
    fake.addChannel({ id: "C0NOWMEM1", name: "now", members: ["U0STAY001", "U0LEAVE01"] });
    expect(await directory.isMemberNow("C0NOWMEM1", "U0LEAVE01")).toBe(true);
    fake.addChannel({ id: "C0NOWMEM1", name: "now", members: ["U0STAY001"] });
    expect(await directory.isMemberNow("C0NOWMEM1", "U0LEAVE01")).toBe(false);
    expect(membersCalls()).toHaveLength(2);
  });

  it("lists a channel once for checks made at the same moment", async () => {
    fake.addChannel({ id: "C0SHARED1", name: "shared", members: ["U0ONE0001", "U0TWO0001"] });
    const answers = await Promise.all([
      directory.isMemberNow("C0SHARED1", "U0ONE0001"),
      directory.isMemberNow("C0SHARED1", "U0TWO0001"),
      directory.isMemberNow("C0SHARED1", fake.botUserId),
      directory.isMemberNow("C0SHARED1", "U0NOPE001"),
    ]);
    expect(answers).toEqual([true, true, true, false]);
    expect(membersCalls()).toHaveLength(1);
  });

  it("reads pages of 999 and stops as soon as the person is found", async () => {
    const people = Array.from({ length: 2_500 }, (_, i) => `U0BIG${String(i).padStart(5, "0")}`);
    fake.addChannel({ id: "C0BIGONE1", name: "big", members: people });
    expect(await directory.isMemberNow("C0BIGONE1", "U0BIG00010")).toBe(true);
    expect(membersCalls().map((c) => c.args.limit)).toEqual(["999"]);
    fake.reset();
    expect(await directory.isMemberNow("C0BIGONE1", "U0BIG02400")).toBe(true);
    expect(membersCalls()).toHaveLength(3);
    fake.reset();
    // Not a member: the whole list is read before saying so.
    expect(await directory.isMemberNow("C0BIGONE1", "U0OUTSIDE")).toBe(false);
    expect(membersCalls()).toHaveLength(3);
  });

  it("after the ack, waits out Slack's Retry-After and reads the page again, rather than refusing", async () => {
    const patient = new SlackDirectory({
      client: new WebClient(fake.botToken, {
        slackApiUrl: fake.apiUrl,
        retryConfig: { retries: 0 },
        rejectRateLimitedCalls: true,
        logLevel: LogLevel.ERROR,
      }),
      botToken: fake.botToken,
      slackHosts: slackHostsOf(fake.apiUrl),
      logger: pino({ level: "silent" }),
    });
    fake.addChannel({ id: "C0LIMITED", name: "limited", members: ["U0LIMIT01"] });
    fake.knobs.rateLimit = { method: "conversations.members", count: 2, retryAfter: 1 };
    expect(await patient.isMemberNow("C0LIMITED", "U0LIMIT01")).toBe(true);
    expect(membersCalls()).toHaveLength(3);
    fake.knobs.rateLimit = { method: "conversations.info", count: 1, retryAfter: 1 };
    expect(await patient.botIsMemberNow("C0LIMITED")).toBe(true);
    // A refusal is final at once: the bot cannot see a private channel it is not in.
    fake.knobs.failNext = { method: "conversations.info", error: "channel_not_found" };
    expect(await patient.botIsMemberNow("C0LIMITED")).toBe(false);
  });

  it("says Slack cannot tell when it does not answer in time, or fails", async () => {
    const quick = new SlackDirectory({
      client: new WebClient(fake.botToken, {
        slackApiUrl: fake.apiUrl,
        retryConfig: { retries: 0 },
        logLevel: LogLevel.ERROR,
      }),
      botToken: fake.botToken,
      slackHosts: slackHostsOf(fake.apiUrl),
      logger: pino({ level: "silent" }),
      decisionBudgetMs: 150,
    });
    fake.addChannel({ id: "C0SLOWONE", name: "slow", members: ["U0SLOW001"] });
    fake.addUser({ id: "U0SLOW001", name: "slow", real_name: "Slow", is_admin: true });
    fake.knobs.rateLimit = { method: "conversations.members", count: 1, retryAfter: 2 };
    const started = Date.now();
    expect(await quick.isMemberNow("C0SLOWONE", "U0SLOW001")).toBeUndefined();
    fake.knobs.rateLimit = { method: "users.info", count: 1, retryAfter: 2 };
    expect(await quick.userNow("U0SLOW001")).toMatchObject({ known: false, isAdmin: false });
    // Neither waited out Slack's Retry-After (2 s each).
    expect(Date.now() - started).toBeLessThan(2_000);
    fake.knobs.failNext = { method: "conversations.members", error: "channel_not_found" };
    expect(await quick.isMemberNow("C0SLOWONE", "U0SLOW001")).toBeUndefined();
  });
});

describe("SlackDirectory: the cache of names", () => {
  it("keeps at most MAX_CACHED_USERS people, forgetting the one unused the longest", async () => {
    const workspace = defaultWorkspace();
    const ids = Array.from({ length: MAX_CACHED_USERS + 1 }, (_, i) => `U0LRU${i}`);
    for (const id of ids) workspace.users.set(id, slackUser(id, `Person ${id}`));
    const slack = createFakeWebClient(workspace);
    const cache = new SlackDirectory({
      client: slack as unknown as WebClient,
      botToken: "xoxb-lru",
      slackHosts: slackHostsOf(fake.apiUrl),
      logger: pino({ level: "silent" }),
    });
    const [first = "", second = "", ...rest] = ids;
    await cache.user(first);
    await cache.user(second);
    for (const id of rest.slice(0, -1)) await cache.user(id);
    // The first is used again: the second is now the one unused the longest.
    expect(cache.cachedUser(first)?.name).toBe(`Person ${first}`);
    await cache.user(rest.at(-1) ?? "");
    expect(cache.cachedUser(second)).toBeUndefined();
    expect(cache.cachedUser(first)).toBeDefined();
    expect(cache.cachedUser(rest.at(-1) ?? "")).toBeDefined();
    expect(slack.users.info).toHaveBeenCalledTimes(ids.length);
  });

  it("asks Slack again once a name is ten minutes old, and decides roles on a fresh answer", async () => {
    const workspace = defaultWorkspace();
    workspace.users.set("U0TTL0001", slackUser("U0TTL0001", "Old Name"));
    const slack = createFakeWebClient(workspace);
    const clock = { now: 1_000_000 };
    const cache = new SlackDirectory({
      client: slack as unknown as WebClient,
      botToken: "xoxb-ttl",
      slackHosts: slackHostsOf(fake.apiUrl),
      logger: pino({ level: "silent" }),
      now: () => clock.now,
    });
    expect((await cache.user("U0TTL0001")).name).toBe("Old Name");
    workspace.users.set("U0TTL0001", { ...slackUser("U0TTL0001", "New Name"), is_admin: true });
    clock.now += USER_CACHE_TTL_MS - 1;
    expect((await cache.user("U0TTL0001")).name).toBe("Old Name");
    // A decision never waits for the cache to lapse: the role is read as it is now.
    expect((await cache.userNow("U0TTL0001")).isAdmin).toBe(true);
    workspace.users.set("U0TTL0001", slackUser("U0TTL0001", "Newest Name"));
    clock.now += USER_CACHE_TTL_MS + 1;
    expect(cache.cachedUser("U0TTL0001")).toBeUndefined();
    expect((await cache.user("U0TTL0001")).name).toBe("Newest Name");
    expect(slack.users.info).toHaveBeenCalledTimes(3);
  });
});
