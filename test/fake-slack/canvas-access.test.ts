import { LogLevel, WebClient } from "@slack/web-api";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createFakeSlack, type FakeSlack } from "../../support/fake-slack/create-fake-slack.ts";

let fake: FakeSlack;
let client: WebClient;
beforeAll(async () => {
  fake = await createFakeSlack();
  client = new WebClient(fake.botToken, {
    slackApiUrl: fake.apiUrl,
    retryConfig: { retries: 0 },
    logLevel: LogLevel.ERROR,
  });
  fake.addChannel({ id: "C0REGULAR", name: "regular" });
  fake.addChannel({ id: "D0ALICEDM", name: "alice", is_im: true });
  fake.addChannel({ id: "G0GROUPDM", name: "mpdm-a-b-c", is_private: true, is_mpim: true });
});
afterEach(() => fake.reset());
afterAll(() => fake.close());

async function newCanvas(): Promise<string> {
  const made = await client.canvases.create({
    title: "Notes",
    document_content: { type: "markdown", markdown: "# Notes" },
  });
  return made.canvas_id as string;
}

describe("canvases.access.set", () => {
  it("sets access for a regular channel", async () => {
    const canvas_id = await newCanvas();
    await client.canvases.access.set({
      canvas_id,
      access_level: "read",
      channel_ids: ["C0REGULAR"],
    });
    expect(fake.canvases.get(canvas_id)?.channels.get("C0REGULAR")).toBe("read");
  });

  it.each(["D0ALICEDM", "G0GROUPDM", "D0UNKNOWN"])(
    "refuses the DM or group DM %s: access levels are for regular channels only",
    async (channel) => {
      const canvas_id = await newCanvas();
      await expect(
        client.canvases.access.set({ canvas_id, access_level: "read", channel_ids: [channel] }),
      ).rejects.toMatchObject({
        data: {
          ok: false,
          error: "failed_to_update_channel_ids",
          failed_to_update_channel_ids: [channel],
        },
      });
      expect(fake.canvases.get(canvas_id)?.channels.size).toBe(0);
    },
  );

  it("still takes user_ids, the documented way to share with DM members", async () => {
    const canvas_id = await newCanvas();
    await expect(
      client.canvases.access.set({ canvas_id, access_level: "read", user_ids: ["U0ALICE01"] }),
    ).resolves.toMatchObject({ ok: true });
  });

  it("refuses both kinds of target at once, and owner for channels", async () => {
    const canvas_id = await newCanvas();
    await expect(
      client.canvases.access.set({
        canvas_id,
        access_level: "read",
        channel_ids: ["C0REGULAR"],
        user_ids: ["U0ALICE01"],
      }),
    ).rejects.toMatchObject({ data: { error: "invalid_parameters" } });
    await expect(
      client.apiCall("canvases.access.set", {
        canvas_id,
        access_level: "owner",
        channel_ids: ["C0REGULAR"],
      }),
    ).rejects.toMatchObject({ data: { error: "invalid_arguments" } });
  });
});
