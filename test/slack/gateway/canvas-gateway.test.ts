import { WebAPIPlatformError, type WebClient } from "@slack/web-api";
import { pino } from "pino";
import { describe, expect, it, vi } from "vitest";
import { type Job, SlackPortError } from "../../../src/jobs/index.ts";
import {
  canvasAudience,
  canvasTitle,
  createCanvas,
  shareCanvas,
} from "../../../src/slack/gateway/canvas-gateway.ts";
import { slackHostsOf } from "../../../src/slack/gateway/download-slack-file.ts";
import { SlackGateway } from "../../../src/slack/gateway/slack-gateway.ts";
import { isDirectMessage } from "../../../src/slack/text/direct-message.ts";
import { origin, source } from "../../../support/helpers/jobs-kit.ts";

const ALICE = "U0ALICE01";

function jobIn(channelId: string): Job {
  return {
    id: "job-1",
    stage: "queued",
    createdAt: Date.UTC(2026, 10, 23),
    updatedAt: 0,
    stageStartedAt: 0,
    attempts: 0,
    origin: origin({ channelId, userId: ALICE }),
    options: {},
    source: source({ filename: "standup.m4a" }),
  };
}

/** The canvas calls of `@slack/web-api`, answering as Slack documents them. */
function canvasClient(fail?: { method: "create" | "access"; error: string }) {
  const answer = (method: "create" | "access", ok: Record<string, unknown>) =>
    fail?.method === method
      ? Promise.reject(new WebAPIPlatformError({ ok: false, error: fail.error }))
      : Promise.resolve({ ok: true, ...ok });
  const client = {
    canvases: {
      create: vi.fn(() => answer("create", { canvas_id: "F0CANVAS01" })),
      access: { set: vi.fn(() => answer("access", {})) },
    },
    files: {
      info: vi.fn(() =>
        Promise.resolve({
          ok: true,
          file: { id: "F0CANVAS01", permalink: "https://t.slack.test/docs/T1/F0CANVAS01" },
        }),
      ),
    },
  };
  return { client, web: client as unknown as WebClient };
}

describe("who may read the canvas", () => {
  it("is the job's channel, public or private, by channel id", () => {
    expect(canvasAudience(jobIn("C0E2E0001"))).toEqual({ channel_ids: ["C0E2E0001"] });
    expect(canvasAudience(jobIn("G0PRIVATE1"))).toEqual({ channel_ids: ["G0PRIVATE1"] });
  });

  it("is the person, by user id, in a direct message: Slack takes no DM id there", () => {
    expect(isDirectMessage("D0ALICEDM1")).toBe(true);
    expect(isDirectMessage("C0E2E0001")).toBe(false);
    expect(canvasAudience(jobIn("D0ALICEDM1"))).toEqual({ user_ids: [ALICE] });
  });

  it("is set with one kind of id only, then the canvas's permalink is its link", async () => {
    for (const [channel, audience] of [
      ["C0E2E0001", { channel_ids: ["C0E2E0001"] }],
      ["D0ALICEDM1", { user_ids: [ALICE] }],
    ] as const) {
      const { client, web } = canvasClient();
      const url = await shareCanvas(web, jobIn(channel), "F0CANVAS01");
      expect(url).toBe("https://t.slack.test/docs/T1/F0CANVAS01");
      expect(client.canvases.access.set.mock.calls).toEqual([
        [{ canvas_id: "F0CANVAS01", access_level: "read", ...audience }],
      ]);
    }
  });
});

describe("a canvas Slack refuses", () => {
  const gateway = (web: WebClient) =>
    new SlackGateway({
      clientsOf: () => ({ client: web, botToken: "xoxb-test" }),
      slackHosts: slackHostsOf("https://slack.com/api/"),
      logger: pino({ level: "silent" }),
    });

  it("for a reason the status can name is an outcome, not an error", async () => {
    const { web } = canvasClient({
      method: "create",
      error: "free_teams_cannot_create_non_tabbed_canvases",
    });
    expect(await createCanvas(web, jobIn("C0E2E0001"), "# Notes", [])).toEqual({
      ok: false,
      refused: "free_plan",
    });
  });

  it("for any other reason is an error trying again cannot help, for the step to record", async () => {
    const { web } = canvasClient({ method: "create", error: "canvas_something_new" });
    const made = gateway(web).createCanvas(jobIn("C0E2E0001"), "# Notes", []);
    await expect(made).rejects.toBeInstanceOf(SlackPortError);
    await expect(made).rejects.toMatchObject({ transient: false });
    const refused = canvasClient({ method: "access", error: "channel_not_found" });
    const shared = gateway(refused.web).shareCanvas(jobIn("C0E2E0001"), "F0CANVAS01");
    await expect(shared).rejects.toMatchObject({ transient: false });
  });

  it("only for now (rate limits, Slack's own trouble) is an error worth trying again", async () => {
    for (const error of ["ratelimited", "internal_error", "service_unavailable"]) {
      const { web } = canvasClient({ method: "create", error });
      await expect(
        gateway(web).createCanvas(jobIn("C0E2E0001"), "# Notes", []),
      ).rejects.toMatchObject({ transient: true });
    }
  });
});

describe("canvasTitle", () => {
  // The date formats are built at the first title, not at start: the first call works.
  it("names the recording and the meeting's date in the person's language", () => {
    const job = (locale: string) =>
      ({
        source: source({ filename: "standup.mov" }),
        origin: origin({ locale }),
        createdAt: Date.UTC(2026, 10, 23, 12),
      }) as unknown as Job;
    expect(canvasTitle(job("en-US"))).toBe("standup.mov · Nov 23, 2026");
    expect(canvasTitle(job("vi-VN"))).toMatch(/^standup\.mov · 23 thg 11, 2026$/);
  });
});
