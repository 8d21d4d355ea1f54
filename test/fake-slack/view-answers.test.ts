import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { LogLevel, WebClient } from "@slack/web-api";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createFakeSlack, type FakeSlack } from "../../support/fake-slack/create-fake-slack.ts";
import { newTriggerId, viewSubmissionPayload } from "../../support/fake-slack/slack-payloads.ts";
import { sendViewSubmission } from "../../support/fake-slack/slack-request.ts";

let fake: FakeSlack;
let app: Server;
let appUrl: string;
/** What the stand-in app answers to every request. */
let answer: unknown;

beforeAll(async () => {
  fake = await createFakeSlack();
  app = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => app.listen(0, "127.0.0.1", resolve));
  appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/slack/events`;
});
afterEach(() => fake.reset());
afterAll(async () => {
  await fake.close();
  await new Promise((resolve) => app.close(resolve));
});

/** The app opens a modal with one input block, `name`. */
async function openModal(): Promise<string> {
  const client = new WebClient(fake.botToken, {
    slackApiUrl: fake.apiUrl,
    logLevel: LogLevel.ERROR,
  });
  const opened = await client.views.open({
    trigger_id: newTriggerId(),
    view: {
      type: "modal",
      callback_id: "names",
      private_metadata: "job-1",
      title: { type: "plain_text", text: "Names" },
      submit: { type: "plain_text", text: "Save" },
      blocks: [
        { type: "section", block_id: "intro", text: { type: "mrkdwn", text: "Who spoke?" } },
        {
          type: "input",
          block_id: "name",
          label: { type: "plain_text", text: "Name" },
          element: { type: "plain_text_input", action_id: "value" },
        },
      ],
    },
  });
  return opened.view?.id as string;
}

const submission = (viewId?: string) =>
  viewSubmissionPayload({
    callbackId: "names",
    privateMetadata: "job-1",
    values: { name: { value: { type: "plain_text_input", value: "" } } },
    user: "U0ALICE01",
    ...(viewId === undefined ? {} : { viewId }),
  });

describe("answers to view_submission", () => {
  it("takes errors under an input block of the view", async () => {
    const viewId = await openModal();
    answer = { response_action: "errors", errors: { name: "Type a name" } };
    await sendViewSubmission(appUrl, "secret", submission(viewId));
    expect(fake.violations).toEqual([]);
  });

  it("records errors naming a block that is no input of the view", async () => {
    await openModal();
    // The submission names no view id: the fake finds the view by callback_id and metadata.
    for (const key of ["intro", "nowhere"]) {
      answer = { response_action: "errors", errors: { [key]: "Wrong" } };
      await sendViewSubmission(appUrl, "secret", submission());
    }
    expect(fake.violations).toMatchObject([
      { rule: "view_errors", method: "view_submission", detail: expect.stringContaining("intro") },
      { rule: "view_errors", detail: expect.stringContaining("nowhere") },
    ]);
  });

  it("checks the acks of a Socket Mode app the same way", async () => {
    const socketFake = await createFakeSlack({ socketMode: true });
    try {
      const socket = socketFake.socket;
      if (socket === undefined) throw new Error("no socket");
      const res = await fetch(`${socketFake.apiUrl}apps.connections.open`, {
        method: "POST",
        headers: { authorization: `Bearer ${socket.appToken}` },
      });
      const ws = new WebSocket(((await res.json()) as { url: string }).url);
      ws.addEventListener("message", (e) => {
        const envelope = JSON.parse(String(e.data)) as { envelope_id?: string };
        if (envelope.envelope_id === undefined) return;
        const payload = { response_action: "errors", errors: { nowhere: "Wrong" } };
        ws.send(JSON.stringify({ envelope_id: envelope.envelope_id, payload }));
      });
      await new Promise((resolve) => ws.addEventListener("open", resolve));
      // A view this fake never opened: the blocks the submission carries are the view's.
      const payload = submission();
      const blocks = [
        { type: "input", block_id: "name", label: { type: "plain_text", text: "N" } },
      ];
      payload.view = { ...(payload.view as object), blocks };
      const sent = await socket.send("interactive", payload);
      expect(sent.acked).toBe(true);
      expect(socketFake.violations).toMatchObject([{ rule: "view_errors" }]);
      ws.close();
    } finally {
      await socketFake.close();
    }
  });
});
