import { readFileSync } from "node:fs";
import { LogLevel, WebClient } from "@slack/web-api";
import { afterEach, describe, expect, it } from "vitest";
import { HTTP_MANIFEST, installedApp } from "../../support/fake-slack/app-manifest.ts";
import { createFakeSlack, type FakeSlack } from "../../support/fake-slack/create-fake-slack.ts";

const opened: FakeSlack[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((f) => f.close()));
});

async function fakeWith(options: Parameters<typeof createFakeSlack>[0] = {}): Promise<FakeSlack> {
  const fake = await createFakeSlack(options);
  opened.push(fake);
  fake.addChannel({ id: "D0ALICEDM", name: "alice", is_im: true });
  fake.addChannel({ id: "C0PUBLIC1", name: "public" });
  return fake;
}

const tab = (enabled: boolean, readOnly: boolean) => ({
  features: {
    app_home: { messages_tab_enabled: enabled, messages_tab_read_only_enabled: readOnly },
  },
  oauth_config: { scopes: { bot: ["chat:write", "im:history"] } },
});

describe("the App Home's Messages tab", () => {
  it("is read from the repository's manifest", () => {
    const home = JSON.parse(readFileSync(HTTP_MANIFEST, "utf8")).features.app_home;
    expect(installedApp(HTTP_MANIFEST).peopleCanMessage).toBe(
      home.messages_tab_enabled && !home.messages_tab_read_only_enabled,
    );
  });

  it.each([
    ["read-only", tab(true, true)],
    ["off", tab(false, false)],
  ])("when %s, no one can write or share a file in the app's DM", async (_name, manifest) => {
    const fake = await fakeWith({ manifest });
    const file = fake.addFile({ name: "standup.m4a", bytes: "audio", user: "U0ALICE01" });
    expect(() => fake.shareFile(file, { channel: "D0ALICEDM", user: "U0ALICE01" })).toThrow(
      /Messages tab is off or read-only/,
    );
    expect(() =>
      fake.addMessage({ channel: "D0ALICEDM", user: "U0ALICE01", text: "hi" }),
    ).toThrow();
    expect(() =>
      fake.addFile({ name: "a.m4a", bytes: "a", user: "U0ALICE01", channel: "D0ALICEDM" }),
    ).toThrow();
    expect(() =>
      fake.shareSnippet({ channel: "D0ALICEDM", user: "U0ALICE01", content: "x" }),
    ).toThrow();
    expect(fake.messages("D0ALICEDM")).toEqual([]);
    // Channels are not the Messages tab; and the app itself may still write in its DM.
    expect(fake.shareFile(file, { channel: "C0PUBLIC1", user: "U0ALICE01" }).channel).toBe(
      "C0PUBLIC1",
    );
    const client = new WebClient(fake.botToken, {
      slackApiUrl: fake.apiUrl,
      logLevel: LogLevel.ERROR,
    });
    await expect(
      client.chat.postMessage({ channel: "D0ALICEDM", text: "hello" }),
    ).resolves.toMatchObject({ ok: true });
  });

  it("lets people write when the tab takes messages, or when a test turns the rule off", async () => {
    const open = await fakeWith({ manifest: tab(true, false) });
    expect(open.addMessage({ channel: "D0ALICEDM", user: "U0ALICE01", text: "hi" }).text).toBe(
      "hi",
    );
    const lenient = await fakeWith({ strict: { messagesTab: false } });
    expect(lenient.addMessage({ channel: "D0ALICEDM", user: "U0ALICE01", text: "hi" }).text).toBe(
      "hi",
    );
  });
});
