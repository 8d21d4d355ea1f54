import { describe, expect, it } from "vitest";
import { renewRefusedToken } from "../../../src/slack/installs/renew-refused-token.ts";
import {
  RequestAuthorizedClient,
  withRequestAuth,
} from "../../../src/slack/installs/request-client.ts";
import type { TokenSource } from "../../../src/slack/installs/token-source.ts";

/** A Slack that answers `ok` to the tokens in `good` and `token_expired` to every other. */
function slack(good: Set<string>) {
  const seen: (string | undefined)[] = [];
  const fetch = async (_input: string | URL | Request, init: RequestInit = {}) => {
    const token = new Headers(init.headers).get("authorization")?.replace("Bearer ", "");
    seen.push(token);
    const body =
      token !== undefined && good.has(token) ? { ok: true } : { ok: false, error: "token_expired" };
    return Response.json(body);
  };
  return { fetch, seen };
}

/** A token source whose renewal gives `fresh` once `release` is called (at once: `now`). */
function renewal(fresh: string, now = true) {
  const asked: string[] = [];
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
    if (now) resolve();
  });
  const tokens: TokenSource = {
    botToken: async () => fresh,
    refused: async (install, token, error) => {
      asked.push(`${install}:${token}:${error}`);
      await released;
      return fresh;
    },
  };
  return { tokens, asked, release };
}

/** The listeners' client: each call carries the request's token, renewed once when refused. */
function listenerClient(fetch: ReturnType<typeof slack>["fetch"], tokens: TokenSource) {
  return new RequestAuthorizedClient({
    slackApiUrl: "http://slack.invalid/api/",
    retryConfig: { retries: 0 },
    fetch: renewRefusedToken(fetch, tokens, () => "TT0ALPHA", { withinMs: 50 }),
  });
}

const publish = (client: RequestAuthorizedClient) =>
  withRequestAuth({ botToken: "xoxb-stale", teamId: "T0ALPHA" }, () =>
    client.views.publish({ user_id: "U1", view: { type: "home", blocks: [] } }),
  );

describe("renewRefusedToken on the listeners' client", () => {
  it("sends a call Slack refused for the request's token once more, with the renewed token", async () => {
    const s = slack(new Set(["xoxb-fresh"]));
    const r = renewal("xoxb-fresh");
    const answer = await publish(listenerClient(s.fetch, r.tokens));
    expect(answer.ok).toBe(true);
    expect(s.seen).toEqual(["xoxb-stale", "xoxb-fresh"]);
    expect(r.asked).toEqual(["TT0ALPHA:xoxb-stale:token_expired"]);
  });

  it("gives Slack's refusal back when the renewal takes longer than allowed, without waiting for it", async () => {
    const s = slack(new Set(["xoxb-fresh"]));
    const r = renewal("xoxb-fresh", false);
    const started = performance.now();
    await expect(publish(listenerClient(s.fetch, r.tokens))).rejects.toMatchObject({
      data: { error: "token_expired" },
    });
    // Well under a trigger_id's 3 seconds: the renewal is still under way.
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(s.seen).toEqual(["xoxb-stale"]);
    r.release();
  });

  it("renews nothing for a call that carried no token (outside a request)", async () => {
    const s = slack(new Set(["xoxb-fresh"]));
    const r = renewal("xoxb-fresh");
    const client = listenerClient(s.fetch, r.tokens);
    await expect(client.auth.test()).rejects.toMatchObject({ data: { error: "token_expired" } });
    expect(s.seen).toEqual([undefined]);
    expect(r.asked).toEqual([]);
  });
});
