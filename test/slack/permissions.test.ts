import { describe, expect, it } from "vitest";
import type { Job } from "../../src/jobs/index.ts";
import type { SlackFile } from "../../src/slack/directory/recording-file.ts";
import type { UserInfo } from "../../src/slack/directory/slack-directory.ts";
import {
  type JobAction,
  PERMISSION_TABLE,
  type PermissionLookups,
  Permissions,
  type Refusal,
} from "../../src/slack/permissions.ts";

const CHANNEL = "C0TEAM001";
const STATUS_TS = "1700000000.000200";
const BOT = "U0BOT0001";

type Person = Partial<Pick<UserInfo, "isAdmin" | "isGuest" | "known">>;

/** Slack as the rules see it: who is who, and who is in which conversation. */
function lookups(people: Record<string, Person>, members: Record<string, string[] | "error">) {
  const asked: string[] = [];
  const source: PermissionLookups = {
    async userNow(userId) {
      asked.push(`user:${userId}`);
      const person = people[userId];
      return {
        name: userId,
        locale: undefined,
        isAdmin: person?.isAdmin ?? false,
        isGuest: person?.isGuest ?? false,
        known: person?.known ?? person !== undefined,
      };
    },
    async isMemberNow(channelId, userId) {
      asked.push(`members:${channelId}`);
      const list = members[channelId];
      if (list === "error" || list === undefined) return undefined;
      return list.includes(userId);
    },
    async botIsMemberNow(channelId) {
      asked.push(`bot:${channelId}`);
      const list = members[channelId];
      if (list === "error" || list === undefined) return undefined;
      return list.includes(BOT);
    },
  };
  return { source, asked };
}

const job = {
  id: "job-1",
  stage: "naming",
  statusTs: STATUS_TS,
  origin: { teamId: "T1", channelId: CHANNEL, threadTs: "1700000000.000100", userId: "U0ALICE01" },
} as unknown as Job;

const here = { channelId: CHANNEL, messageTs: STATUS_TS };

/** The actions on a job: the table's rows that ask for the job's channel. */
const JOB_ACTIONS = (Object.keys(PERMISSION_TABLE) as (keyof typeof PERMISSION_TABLE)[]).filter(
  (action): action is JobAction => PERMISSION_TABLE[action].mustBeIn === "job_channel",
);

const people: Record<string, Person> = {
  U0ALICE01: {},
  U0BOB0001: {},
  U0ADMIN01: { isAdmin: true },
  U0GUEST01: { isGuest: true },
  U0OUTSIDE: {},
  U0ADMGST1: { isAdmin: true, isGuest: true },
  U0OUTADMN: { isAdmin: true },
};
const members = { [CHANNEL]: ["U0ALICE01", "U0BOB0001", "U0ADMIN01", "U0GUEST01", BOT] };

describe("Permissions.jobAction", () => {
  const table: [JobAction, string, boolean | string][] = [
    ["cancel", "U0ALICE01", true],
    ["cancel", "U0BOB0001", "starter_or_admin"],
    ["cancel", "U0ADMIN01", true],
    ["cancel", "U0GUEST01", "starter_or_admin"],
    ["cancel", "U0OUTADMN", "starter_or_admin"],
    ["regenerate", "U0ALICE01", true],
    ["regenerate", "U0BOB0001", "starter_or_admin"],
    ["regenerate", "U0ADMIN01", true],
    ["regenerate", "U0OUTADMN", "starter_or_admin"],
    ["post", "U0ALICE01", true],
    ["post", "U0BOB0001", "starter_or_admin"],
    ["post", "U0ADMIN01", true],
    ["post", "U0OUTADMN", "starter_or_admin"],
    ["discard", "U0ALICE01", true],
    ["discard", "U0GUEST01", "starter_or_admin"],
    ["discard", "U0ADMIN01", true],
    ["names", "U0ALICE01", true],
    ["names", "U0BOB0001", true],
    ["names", "U0ADMIN01", true],
    ["names", "U0GUEST01", "starter_or_member"],
    ["names", "U0OUTSIDE", "starter_or_member"],
    ["names", "U0OUTADMN", "starter_or_member"],
    ["names", "U0UNKNOWN", "starter_or_member"],
    ["skip", "U0BOB0001", true],
    ["skip", "U0GUEST01", "starter_or_member"],
    ["retry", "U0BOB0001", true],
    ["retry", "U0OUTSIDE", "starter_or_member"],
  ];
  it.each(table)("%s by %s → %s", async (action, user, expected) => {
    const permissions = new Permissions(lookups(people, members).source);
    const decision = await permissions.jobAction(action, job, user);
    expect(decision).toEqual(expected === true ? { ok: true } : { ok: false, reason: expected });
  });

  const whoCan: Record<JobAction, Refusal> = {
    cancel: "starter_or_admin",
    regenerate: "starter_or_admin",
    post: "starter_or_admin",
    discard: "starter_or_admin",
    names: "starter_or_member",
    skip: "starter_or_member",
    retry: "starter_or_member",
  };
  it.each(JOB_ACTIONS)(
    "refuses %s to a starter removed from the job's channel, saying who can",
    async (action) => {
      const channel = [...(members[CHANNEL] ?? [])];
      const permissions = new Permissions(lookups(people, { [CHANNEL]: channel }).source);
      expect(await permissions.jobAction(action, job, "U0ALICE01")).toEqual({ ok: true });
      channel.splice(channel.indexOf("U0ALICE01"), 1);
      expect(await permissions.jobAction(action, job, "U0ALICE01")).toEqual({
        ok: false,
        reason: whoCan[action],
      });
    },
  );

  it("asks the starter's membership only, never their role", async () => {
    const { source, asked } = lookups(people, members);
    await new Permissions(source).jobAction("cancel", job, "U0ALICE01", here);
    expect(asked).toEqual([`members:${CHANNEL}`]);
  });

  it("needs no look-up for the starter of a job in their direct message with the bot", async () => {
    const dm = "D0ALICE01";
    const inDm = { ...job, origin: { ...job.origin, channelId: dm } } as unknown as Job;
    const { source, asked } = lookups(people, { [dm]: "error" });
    const permissions = new Permissions(source);
    for (const action of JOB_ACTIONS) {
      expect(await permissions.jobAction(action, inDm, "U0ALICE01")).toEqual({ ok: true });
    }
    expect(asked).toEqual([]);
    // Anyone else is asked for, as everywhere: an admin is not in Alice's direct message.
    const closed = new Permissions(lookups(people, { [dm]: ["U0ALICE01", BOT] }).source);
    expect(await closed.jobAction("cancel", inDm, "U0ADMIN01")).toEqual({
      ok: false,
      reason: "starter_or_admin",
    });
  });

  it("refuses a click that is not on the job's own status message, even by its starter", async () => {
    const permissions = new Permissions(lookups(people, members).source);
    for (const place of [
      { channelId: "C0ELSEWHR", messageTs: STATUS_TS },
      { channelId: CHANNEL, messageTs: "1700000000.999999" },
      { channelId: undefined, messageTs: undefined },
    ]) {
      expect(await permissions.jobAction("cancel", job, "U0ALICE01", place)).toEqual({
        ok: false,
        reason: "not_this_job",
      });
    }
    // Just posted, its ts not yet saved: a message in the job's own thread is taken for it.
    const unposted = { ...job, statusTs: undefined } as unknown as Job;
    const inThread = { ...here, threadTs: job.origin.threadTs };
    expect(await permissions.jobAction("names", unposted, "U0ALICE01", inThread)).toEqual({
      ok: true,
    });
    expect(
      await permissions.jobAction("names", unposted, "U0ALICE01", {
        ...here,
        threadTs: "1700000000.999000",
      }),
    ).toMatchObject({ ok: false });
  });

  it("takes Post and Discard from the job's review message only, for its starter or an admin", async () => {
    const permissions = new Permissions(lookups(people, members).source);
    const review = { channelId: "D0ALICE01", ts: "1700000001.000001" };
    const reviewing = { ...job, stage: "reviewing", review } as unknown as Job;
    const onReview = { channelId: review.channelId, messageTs: review.ts };
    for (const action of ["post", "discard"] as const) {
      expect(await permissions.jobAction(action, reviewing, "U0ALICE01", onReview)).toEqual({
        ok: true,
      });
      expect(await permissions.jobAction(action, reviewing, "U0ADMIN01", onReview)).toEqual({
        ok: true,
      });
      expect(await permissions.jobAction(action, reviewing, "U0BOB0001", onReview)).toEqual({
        ok: false,
        reason: "starter_or_admin",
      });
      // Not from the status message, nor from an earlier review's message.
      for (const place of [here, { ...onReview, messageTs: "1700000001.000000" }]) {
        expect(await permissions.jobAction(action, reviewing, "U0ALICE01", place)).toEqual({
          ok: false,
          reason: "not_this_job",
        });
      }
    }
    // Change names (Regenerate) on the review's message, and no longer from it once posted.
    expect(await permissions.jobAction("regenerate", reviewing, "U0ALICE01", onReview)).toEqual({
      ok: true,
    });
    const done = { ...reviewing, stage: "done" } as unknown as Job;
    expect(await permissions.jobAction("regenerate", done, "U0ALICE01", onReview)).toMatchObject({
      ok: false,
    });
  });

  it("refuses with cannot_tell when Slack cannot say who is in the channel, the starter too", async () => {
    const permissions = new Permissions(lookups(people, { [CHANNEL]: "error" }).source);
    const cannotTell = { ok: false, reason: "cannot_tell" };
    expect(await permissions.jobAction("names", job, "U0BOB0001", here)).toEqual(cannotTell);
    expect(await permissions.jobAction("post", job, "U0ALICE01")).toEqual(cannotTell);
    expect(await permissions.jobAction("cancel", job, "U0ADMIN01")).toEqual(cannotTell);
    // A role that cannot do it is a plain no, whatever the channel.
    expect(await permissions.jobAction("cancel", job, "U0BOB0001")).toEqual({
      ok: false,
      reason: "starter_or_admin",
    });
    expect(await permissions.channelSettings(CHANNEL, "U0BOB0001")).toEqual(cannotTell);
  });

  it("refuses an admin Slack could not describe (users.info failed)", async () => {
    const permissions = new Permissions(
      lookups({ U0ADMIN01: { isAdmin: true, known: false } }, members).source,
    );
    expect(await permissions.jobAction("cancel", job, "U0ADMIN01", here)).toEqual({
      ok: false,
      reason: "cannot_tell",
    });
  });
});

describe("Permissions.channelSettings", () => {
  it.each([
    ["U0ALICE01", true],
    ["U0ADMIN01", true],
    ["U0GUEST01", false],
    ["U0ADMGST1", false],
    ["U0OUTSIDE", false],
  ])("%s → %s", async (user, ok) => {
    const permissions = new Permissions(
      lookups(people, { [CHANNEL]: [...(members[CHANNEL] ?? []), "U0ADMGST1"] }).source,
    );
    expect((await permissions.channelSettings(CHANNEL, user)).ok).toBe(ok);
  });
});

describe("Permissions.destination", () => {
  it("needs both the requester and the bot in the conversation", async () => {
    const permissions = new Permissions(
      lookups(people, {
        [CHANNEL]: members[CHANNEL] ?? [],
        C0NOBOT01: ["U0ALICE01"],
        C0BROKEN1: "error",
      }).source,
    );
    expect(await permissions.destination(CHANNEL, "U0ALICE01")).toBeUndefined();
    expect(await permissions.destination(CHANNEL, "U0OUTSIDE")).toBe("user_not_in");
    expect(await permissions.destination("C0NOBOT01", "U0ALICE01")).toBe("bot_not_in");
    expect(await permissions.destination("C0BROKEN1", "U0ALICE01")).toBe("unknown");
  });
});

describe("Permissions.file", () => {
  const file = (extra: Partial<SlackFile>): SlackFile => ({ id: "F0REC0001", ...extra });
  it("takes the requester's own upload, or a file shared where they are a member", async () => {
    const permissions = new Permissions(
      lookups(people, { [CHANNEL]: ["U0BOB0001"], C0PRIVATE: ["U0ALICE01"] }).source,
    );
    expect(await permissions.file(file({ user: "U0BOB0001" }), "U0BOB0001")).toBe(true);
    expect(
      await permissions.file(file({ user: "U0ALICE01", channels: [CHANNEL] }), "U0BOB0001"),
    ).toBe(true);
    expect(
      await permissions.file(
        file({ user: "U0ALICE01", shares: { private: { C0PRIVATE: [] } } }),
        "U0BOB0001",
      ),
    ).toBe(false);
    expect(
      await permissions.file(file({ user: "U0BOB0001", groups: ["C0PRIVATE"] }), "U0ALICE01"),
    ).toBe(true);
    expect(await permissions.file(file({ user: "U0ALICE01" }), "U0BOB0001")).toBe(false);
    expect(await permissions.file(file({}), "U0BOB0001")).toBe(false);
  });

  it("answers yes as soon as one share is the requester's, without waiting for the others", async () => {
    const { source } = lookups(people, { [CHANNEL]: ["U0BOB0001"] });
    const slow = new Promise<boolean | undefined>(() => {});
    const permissions = new Permissions({
      ...source,
      isMemberNow: (channelId, userId) =>
        channelId === "C0SLOW001" ? slow : source.isMemberNow(channelId, userId),
    });
    const shared = file({ user: "U0ALICE01", channels: ["C0SLOW001", CHANNEL] });
    expect(await permissions.file(shared, "U0BOB0001")).toBe(true);
  });

  it("refuses when no share can be checked (Slack could not tell)", async () => {
    const permissions = new Permissions(lookups(people, { C0BROKEN1: "error" }).source);
    expect(
      await permissions.file(file({ user: "U0ALICE01", channels: ["C0BROKEN1"] }), "U0BOB0001"),
    ).toBe(false);
  });
});

describe("decisions follow Slack as it is now", () => {
  it("asks Slack again at every decision: a member removed, an admin demoted, are refused at once", async () => {
    const roles: Record<string, Person> = { ...people };
    const channel = [...(members[CHANNEL] ?? [])];
    const { source, asked } = lookups(roles, { [CHANNEL]: channel });
    const permissions = new Permissions(source);
    expect(await permissions.jobAction("skip", job, "U0BOB0001", here)).toEqual({ ok: true });
    expect(await permissions.jobAction("cancel", job, "U0ADMIN01", here)).toEqual({ ok: true });
    channel.splice(channel.indexOf("U0BOB0001"), 1);
    roles.U0ADMIN01 = {};
    expect(await permissions.jobAction("skip", job, "U0BOB0001", here)).toEqual({
      ok: false,
      reason: "starter_or_member",
    });
    expect(await permissions.jobAction("cancel", job, "U0ADMIN01", here)).toEqual({
      ok: false,
      reason: "starter_or_admin",
    });
    expect(await permissions.channelSettings(CHANNEL, "U0BOB0001")).toMatchObject({ ok: false });
    expect(asked.filter((a) => a === `members:${CHANNEL}`)).toHaveLength(5);
    expect(asked.filter((a) => a === "user:U0ADMIN01")).toHaveLength(2);
  });
});
