import { describe, expect, it } from "vitest";
import {
  RequestAuthorizedClient,
  withRequestAuth,
} from "../../../src/slack/installs/request-client.ts";

/** A client whose `fetch` records each request's token and form fields, answering ok. */
function recordingClient() {
  const sent: { token: string | undefined; fields: Record<string, string> }[] = [];
  const client = new RequestAuthorizedClient({
    slackApiUrl: "http://slack.invalid/api/",
    retryConfig: { retries: 0 },
    fetch: async (_url, init) => {
      const headers = new Headers(init?.headers);
      sent.push({
        token: headers.get("authorization")?.replace(/^Bearer /, ""),
        fields: Object.fromEntries(new URLSearchParams(String(init?.body ?? ""))),
      });
      return Response.json({ ok: true });
    },
  });
  return { client, sent };
}

describe("RequestAuthorizedClient", () => {
  it("sends each call with the token and workspace of the request in hand, and none outside one", async () => {
    const { client, sent } = recordingClient();
    await withRequestAuth({ botToken: "xoxb-alpha-token", teamId: "T0ALPHA" }, () =>
      client.views.publish({ user_id: "U1", view: { type: "home", blocks: [] } }),
    );
    await Promise.all([
      withRequestAuth({ botToken: "xoxb-org-token", teamId: "T0ORGONE" }, async () => {
        await Promise.resolve();
        await client.chat.postEphemeral({ channel: "C1", user: "U2", text: "x" });
      }),
      withRequestAuth({ botToken: "xoxb-beta-token", teamId: "T0BETA" }, () =>
        client.users.info({ user: "U3" }),
      ),
    ]);
    await client.auth.test();
    const calls = sent.map((s) => [s.token, s.fields.team_id]);
    expect(calls.slice(0, 3).sort()).toEqual([
      ["xoxb-alpha-token", "T0ALPHA"],
      ["xoxb-beta-token", "T0BETA"],
      ["xoxb-org-token", "T0ORGONE"],
    ]);
    // Outside a request: no token of any install.
    expect(calls[3]).toEqual([undefined, undefined]);
  });

  it("keeps a token and team_id the caller gives", async () => {
    const { client, sent } = recordingClient();
    await withRequestAuth({ botToken: "xoxb-alpha-token", teamId: "T0ALPHA" }, () =>
      client.apiCall("users.info", { user: "U1", token: "xoxb-given", team_id: "T0GIVEN" }),
    );
    expect(sent.map((s) => [s.token, s.fields.team_id])).toEqual([["xoxb-given", "T0GIVEN"]]);
  });
});
