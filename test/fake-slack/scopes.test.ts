import { readFileSync } from "node:fs";
import { LogLevel, WebClient } from "@slack/web-api";
import { afterEach, describe, expect, it } from "vitest";
import { HTTP_MANIFEST, installedApp } from "../../support/fake-slack/app-manifest.ts";
import { createFakeSlack, type FakeSlack } from "../../support/fake-slack/create-fake-slack.ts";
import { API_METHODS } from "../../support/fake-slack/handle-api-request.ts";
import { METHOD_SCOPES } from "../../support/fake-slack/scopes.ts";
import {
  messageActionPayload,
  sendAction,
  sendCommand,
} from "../../support/fake-slack/slack-request.ts";

const opened: FakeSlack[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((f) => f.close()));
});

async function fakeWith(scopes: string[] | undefined, strict?: false): Promise<FakeSlack> {
  const manifest = scopes === undefined ? undefined : { oauth_config: { scopes: { bot: scopes } } };
  const fake = await createFakeSlack({
    ...(manifest === undefined ? {} : { manifest }),
    ...(strict === undefined ? {} : { strict }),
  });
  opened.push(fake);
  return fake;
}

const clientOf = (fake: FakeSlack) =>
  new WebClient(fake.botToken, {
    slackApiUrl: fake.apiUrl,
    retryConfig: { retries: 0 },
    logLevel: LogLevel.ERROR,
  });

describe("scopes of the installed manifest", () => {
  it("grants by default what manifests/manifest.http.json asks for", async () => {
    const fake = await fakeWith(undefined);
    const manifest = JSON.parse(readFileSync(HTTP_MANIFEST, "utf8"));
    expect(installedApp(HTTP_MANIFEST).botScopes).toEqual(manifest.oauth_config.scopes.bot);
    fake.addUser({ id: "U0ANY0001", name: "any", real_name: "Any One" });
    await expect(clientOf(fake).users.info({ user: "U0ANY0001" })).resolves.toMatchObject({
      ok: true,
    });
  });

  it("answers missing_scope with needed and provided, as Slack's response types declare", async () => {
    const fake = await fakeWith(["chat:write", "channels:history"]);
    fake.addUser({ id: "U0ANY0001", name: "any", real_name: "Any One" });
    await expect(clientOf(fake).users.info({ user: "U0ANY0001" })).rejects.toMatchObject({
      data: {
        ok: false,
        error: "missing_scope",
        needed: "users:read",
        provided: "chat:write,channels:history",
      },
    });
    await expect(clientOf(fake).files.info({ file: "F0NONE" })).rejects.toMatchObject({
      data: { error: "missing_scope", needed: "files:read" },
    });
    await expect(
      clientOf(fake).canvases.create({
        title: "x",
        document_content: { type: "markdown", markdown: "" },
      }),
    ).rejects.toMatchObject({ data: { error: "missing_scope", needed: "canvases:write" } });
    await expect(
      clientOf(fake).chat.postMessage({ channel: "C0OPEN001", text: "hi" }),
    ).resolves.toMatchObject({
      ok: true,
    });
    expect(fake.callsTo("users.info")[0]?.error).toBe("missing_scope");
  });

  it("needs the history scope of the conversation's kind", async () => {
    const fake = await fakeWith(["chat:write", "channels:history", "groups:history"]);
    fake.addChannel({ id: "C0PUBLIC1", name: "public" });
    fake.addChannel({ id: "G0PRIVATE", name: "private", is_private: true });
    fake.addChannel({ id: "C0GROUPDM", name: "mpdm", is_private: true, is_mpim: true });
    const client = clientOf(fake);
    await expect(client.conversations.history({ channel: "C0PUBLIC1" })).resolves.toMatchObject({
      ok: true,
    });
    await expect(client.conversations.history({ channel: "G0PRIVATE" })).resolves.toMatchObject({
      ok: true,
    });
    await expect(client.conversations.history({ channel: "D0DIRECT1" })).rejects.toMatchObject({
      data: { error: "missing_scope", needed: "im:history" },
    });
    await expect(
      client.conversations.replies({ channel: "C0GROUPDM", ts: "1.000001" }),
    ).rejects.toMatchObject({
      data: { error: "missing_scope", needed: "mpim:history" },
    });
    await expect(client.conversations.members({ channel: "C0PUBLIC1" })).rejects.toMatchObject({
      data: { error: "missing_scope", needed: "channels:read" },
    });
  });

  it("knows the scope (or the lack of one) of every method it implements", () => {
    expect(Object.keys(API_METHODS).filter((m) => !(m in METHOD_SCOPES))).toEqual([]);
  });

  it("lets a test that needs the fake of old turn scopes off", async () => {
    const fake = await fakeWith([], false);
    fake.addUser({ id: "U0ANY0001", name: "any", real_name: "Any One" });
    await expect(clientOf(fake).users.info({ user: "U0ANY0001" })).resolves.toMatchObject({
      ok: true,
    });
  });

  it("delivers no slash command to an install without the commands scope", async () => {
    await fakeWith(["chat:write"]);
    // Refused before anything is sent: the URL is never reached.
    await expect(
      sendCommand("http://127.0.0.1:9/slack/events", "secret", {
        user_id: "U0ANY0001",
        channel_id: "C0OPEN001",
      }),
    ).rejects.toThrow(/commands scope/);
  });

  describe("message shortcuts", () => {
    const url = "http://127.0.0.1:9/slack/events";
    const shortcut = (callbackId: string) =>
      messageActionPayload({
        callbackId,
        user: "U0ANY0001",
        channel: "C0OPEN001",
        message: { type: "message", ts: "1700000000.000100", text: "hi" },
      });

    it("are delivered to no install without the commands scope", async () => {
      const declared = {
        type: "message",
        callback_id: "make_it",
        name: "Make it",
        description: "d",
      };
      const manifest = {
        features: { shortcuts: [declared] },
        oauth_config: { scopes: { bot: ["chat:write"] } },
      };
      opened.push(await createFakeSlack({ manifest }));
      await expect(sendAction(url, "secret", shortcut("make_it"))).rejects.toThrow(
        /commands scope/,
      );
    });

    it("are delivered only under a callback_id the manifest declares", async () => {
      // The repository's manifest declares "Make meeting notes", and nothing else.
      await fakeWith(undefined);
      await expect(sendAction(url, "secret", shortcut("make_it"))).rejects.toThrow(
        /declares no message shortcut make_it/,
      );
    });
  });
});
