import { WebAPIPlatformError, type WebClient } from "@slack/web-api";
import { describe, expect, it, vi } from "vitest";
import { type Job, SlackPortError } from "../../../src/jobs/index.ts";
import { inline } from "../../../src/jobs/model/stored.ts";
import { ReviewGateway } from "../../../src/slack/gateway/review-gateway.ts";
import { toGatewayError } from "../../../src/slack/gateway/slack-errors.ts";
import { ACTIONS, METADATA_EVENT_TYPE } from "../../../src/slack/ids.ts";
import { origin, source } from "../../../support/helpers/jobs-kit.ts";

const ALICE = "U0ALICE01";
const DM = "D0ALICEDM1";

const job = {
  id: "job-1",
  stage: "reviewing",
  createdAt: 0,
  updatedAt: 0,
  stageStartedAt: 0,
  attempts: 0,
  origin: origin({ userId: ALICE, channelId: "C0E2E0001" }),
  source: source({ filename: "standup.m4a" }),
  options: { review: true },
  note: { dialog: inline([]), speakers: [], quotes: inline({}), speakerMap: [] },
  markdown: inline("# N"),
  docxUrl: "https://r.test/n",
  relinks: 0,
  delivery: 2,
  expiresAt: Date.UTC(2026, 11, 24),
  postedParts: 0,
  review: { channelId: DM, ts: "1700000001.000100" },
} as Job;

/** What the review needs of `@slack/web-api`, answering as Slack documents it. */
function reviewClient(history: unknown[] = [], openError?: string) {
  const client = {
    conversations: {
      open: vi.fn(() =>
        openError === undefined
          ? Promise.resolve({ ok: true, channel: { id: DM } })
          : Promise.reject(new WebAPIPlatformError({ ok: false, error: openError })),
      ),
    },
    chat: {
      postMessage: vi.fn(() => Promise.resolve({ ok: true, channel: DM, ts: "1700000002.000100" })),
      update: vi.fn(() => Promise.resolve({ ok: true })),
    },
    paginate: vi.fn(async function* () {
      yield { messages: history };
    }),
  };
  const gateway = new ReviewGateway({
    client: () => client as unknown as WebClient,
    fail: (error, operation) => toGatewayError(error, operation),
  });
  return { client, gateway };
}

const mine = (kind: string, ts: string) => ({
  ts,
  metadata: {
    event_type: METADATA_EVENT_TYPE,
    event_payload: { job_id: "job-1", kind, delivery: 2 },
  },
});

describe("ReviewGateway", () => {
  it("opens the person's DM by their id and posts the review's first message there", async () => {
    const { client, gateway } = reviewClient();
    expect(await gateway.open(job)).toEqual({ channelId: DM, ts: "1700000002.000100" });
    expect(client.conversations.open).toHaveBeenCalledWith({ users: ALICE });
    expect(client.chat.postMessage).toHaveBeenCalledWith(
      expect.objectContaining({
        channel: DM,
        metadata: {
          event_type: METADATA_EVENT_TYPE,
          event_payload: { job_id: "job-1", kind: "review", delivery: 2 },
        },
      }),
    );
    expect(client.paginate).not.toHaveBeenCalled();
  });

  it("after an unknown outcome, finds the message an earlier try posted instead of posting again", async () => {
    const { client, gateway } = reviewClient([
      mine("review", "1700000001.000900"),
      {
        ...mine("review", "1700000001.000800"),
        metadata: { event_type: "other", event_payload: {} },
      },
    ]);
    expect(await gateway.open(job, Date.UTC(2026, 10, 24))).toEqual({
      channelId: DM,
      ts: "1700000001.000900",
    });
    expect(client.chat.postMessage).not.toHaveBeenCalled();
    // The earlier review's own message (the record names it) is not this try's.
    const earlier = reviewClient([mine("review", job.review?.ts ?? "")]);
    expect(await earlier.gateway.open(job, Date.UTC(2026, 10, 24))).toEqual({
      channelId: DM,
      ts: "1700000002.000100",
    });
    await gateway.remind(job, Date.UTC(2026, 11, 23));
    expect(client.chat.postMessage).toHaveBeenCalledTimes(1);
    const found = reviewClient([mine("review_reminder", "1700000003.000100")]);
    await found.gateway.remind(job, Date.UTC(2026, 11, 23));
    expect(found.client.chat.postMessage).not.toHaveBeenCalled();
  });

  it("shows the buttons, each with the job id, only once the review is ready", async () => {
    const { client, gateway } = reviewClient();
    await gateway.show(job, "ready");
    const [call] = client.chat.update.mock.calls as unknown as [
      { channel: string; ts: string; blocks: unknown[] },
    ][];
    expect(call?.[0]).toMatchObject({ channel: DM, ts: "1700000001.000100" });
    const text = JSON.stringify(call?.[0].blocks);
    for (const action of [ACTIONS.postReview, ACTIONS.regenerate, ACTIONS.discardReview]) {
      expect(text).toContain(`"action_id":"${action}","text":`);
    }
    expect(text).toContain('"value":"job-1"');
    // When it expires, in each reader's own time zone (Slack's date formatting).
    const seconds = Date.UTC(2026, 11, 24) / 1000;
    expect(text).toContain(`<!date^${seconds}^{date_long_pretty}|2026-12-24>`);
    await gateway.show(job, "expired");
    expect(JSON.stringify(client.chat.update.mock.calls.at(-1))).not.toContain(ACTIONS.postReview);
  });

  it("fails the job with a sentence naming the reinstall when Slack will not open the DM", async () => {
    const { gateway } = reviewClient([], "missing_scope");
    const error = await gateway.open(job).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SlackPortError);
    expect(error).toMatchObject({ transient: false, failure: "review_unreachable" });
    const busy = reviewClient([], "ratelimited");
    expect(await busy.gateway.open(job).catch((e: unknown) => e)).toMatchObject({
      transient: true,
    });
  });
});
