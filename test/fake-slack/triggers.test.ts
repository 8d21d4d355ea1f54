import { execFileSync } from "node:child_process";
import { LogLevel, WebClient } from "@slack/web-api";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createFakeSlack, type FakeSlack } from "../../support/fake-slack/create-fake-slack.ts";
import { newTriggerId } from "../../support/fake-slack/slack-payloads.ts";
import { TRIGGER_TTL_MS, triggerIssuedAt } from "../../support/fake-slack/triggers.ts";

let fake: FakeSlack;
let client: WebClient;
beforeAll(async () => {
  fake = await createFakeSlack();
  client = new WebClient(fake.botToken, {
    slackApiUrl: fake.apiUrl,
    retryConfig: { retries: 0 },
    logLevel: LogLevel.ERROR,
  });
});
afterEach(() => fake.reset());
afterAll(() => fake.close());

const view = {
  type: "modal" as const,
  callback_id: "trigger_test",
  title: { type: "plain_text" as const, text: "Triggers" },
  blocks: [{ type: "section" as const, text: { type: "mrkdwn" as const, text: "Hello" } }],
};

describe("trigger_id", () => {
  it("is shaped like Slack's and carries its issue time", () => {
    const issued = Date.now() - 1234;
    const trigger = newTriggerId(issued);
    expect(trigger).toMatch(/^\d+\.\d+\.[0-9a-f]+$/);
    expect(triggerIssuedAt(trigger)).toBe(issued);
    expect(triggerIssuedAt("12345.98765.abcd2358fdea")).toBeUndefined();
  });

  it("opens a modal once: a second views.open with it is exchanged_trigger_id", async () => {
    const trigger = newTriggerId();
    await expect(client.views.open({ trigger_id: trigger, view })).resolves.toMatchObject({
      ok: true,
    });
    await expect(client.views.open({ trigger_id: trigger, view })).rejects.toMatchObject({
      data: { error: "exchanged_trigger_id" },
    });
    await expect(client.views.push({ trigger_id: trigger, view })).rejects.toMatchObject({
      data: { error: "exchanged_trigger_id" },
    });
  });

  it("expires 3 s after it was issued, on the fake's clock", async () => {
    const issued = Date.now();
    fake.knobs.now = () => issued + TRIGGER_TTL_MS;
    await expect(
      client.views.open({ trigger_id: newTriggerId(issued), view }),
    ).resolves.toMatchObject({
      ok: true,
    });
    fake.knobs.now = () => issued + TRIGGER_TTL_MS + 1;
    for (const method of ["open", "push"] as const) {
      await expect(
        client.views[method]({ trigger_id: newTriggerId(issued), view }),
      ).rejects.toMatchObject({
        data: { error: "expired_trigger_id" },
      });
    }
    expect(fake.views).toHaveLength(1);
  });

  it("refuses one no interaction issued: invalid_trigger_id", async () => {
    const forged = newTriggerId().replace(/[0-9a-f]$/, (c) => (c === "0" ? "1" : "0"));
    for (const trigger of ["1.2.abc", "12345.98765.abcd2358fdea", forged]) {
      await expect(client.views.open({ trigger_id: trigger, view })).rejects.toMatchObject({
        data: { error: "invalid_trigger_id" },
      });
    }
  });

  it("is read the same when another process minted it", async () => {
    const module = new URL("../../support/fake-slack/triggers.ts", import.meta.url).href;
    const minted = execFileSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import { mintTriggerId } from ${JSON.stringify(module)}; console.log(mintTriggerId());`,
      ],
      { encoding: "utf8" },
    ).trim();
    expect(triggerIssuedAt(minted)).toBeGreaterThan(Date.now() - 60_000);
    await expect(client.views.open({ trigger_id: minted, view })).resolves.toMatchObject({
      ok: true,
    });
  });

  it("is not checked when a test turns the rule off", async () => {
    const lenient = await createFakeSlack({ strict: { triggers: false } });
    try {
      const old = new WebClient(lenient.botToken, {
        slackApiUrl: lenient.apiUrl,
        retryConfig: { retries: 0 },
      });
      await expect(old.views.open({ trigger_id: "1.2.abc", view })).resolves.toMatchObject({
        ok: true,
      });
    } finally {
      await lenient.close();
    }
  });
});
