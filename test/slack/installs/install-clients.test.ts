import { describe, expect, it } from "vitest";
import { isTenantOf, SINGLE_INSTALL, tenantOf } from "../../../src/jobs/index.ts";
import { withInstallToken } from "../../../src/slack/installs/install-clients.ts";
import type { TokenSource } from "../../../src/slack/installs/token-source.ts";

/** A Slack that answers `ok` to `good` tokens and `error` to every other. */
function slack(good: Set<string>, error = "token_expired") {
  const seen: string[] = [];
  const fetch = async (_input: string | URL | Request, init: RequestInit = {}) => {
    const token = new Headers(init.headers).get("authorization")?.replace("Bearer ", "") ?? "";
    seen.push(token);
    const body = good.has(token) ? { ok: true } : { ok: false, error };
    return new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } });
  };
  return { fetch, seen };
}

function tokens(current: string, fresh: string | undefined) {
  const refused: string[] = [];
  const source: TokenSource = {
    botToken: async () => current,
    refused: async (_install, token, error) => {
      refused.push(`${token}:${error}`);
      return fresh;
    },
  };
  return { source, refused };
}

const call = (fetch: ReturnType<typeof withInstallToken>) =>
  fetch("https://slack.test/api/chat.postMessage", { method: "POST", body: "channel=C1" });

describe("withInstallToken", () => {
  it("sends each call with the install's token as it is now", async () => {
    const s = slack(new Set(["xoxb-a"]));
    const t = tokens("xoxb-a", undefined);
    const answer = await call(withInstallToken(s.fetch, t.source, () => "TT1"));
    expect(await answer.json()).toEqual({ ok: true });
    expect(s.seen).toEqual(["xoxb-a"]);
    expect(t.refused).toEqual([]);
  });

  it("sends a call Slack refused for its token once more, with the fresh token", async () => {
    const s = slack(new Set(["xoxb-new"]));
    const t = tokens("xoxb-old", "xoxb-new");
    const answer = await call(withInstallToken(s.fetch, t.source, () => "TT1"));
    expect(await answer.json()).toEqual({ ok: true });
    expect(s.seen).toEqual(["xoxb-old", "xoxb-new"]);
    expect(t.refused).toEqual(["xoxb-old:token_expired"]);
  });

  it("gives Slack's refusal back when no fresh token comes, and tries only once more", async () => {
    const none = slack(new Set(), "token_revoked");
    const gone = tokens("xoxb-old", undefined);
    const answer = await call(withInstallToken(none.fetch, gone.source, () => "TT1"));
    expect(await answer.json()).toEqual({ ok: false, error: "token_revoked" });
    expect(none.seen).toEqual(["xoxb-old"]);
    const still = slack(new Set(), "invalid_auth");
    const again = tokens("xoxb-old", "xoxb-also-bad");
    await call(withInstallToken(still.fetch, again.source, () => "TT1"));
    expect(still.seen).toEqual(["xoxb-old", "xoxb-also-bad"]);
  });

  it("does not renew the token for another error", async () => {
    const s = slack(new Set(), "channel_not_found");
    const t = tokens("xoxb-a", "xoxb-b");
    await call(withInstallToken(s.fetch, t.source, () => "TT1"));
    expect(s.seen).toEqual(["xoxb-a"]);
    expect(t.refused).toEqual([]);
  });
});

describe("tenants", () => {
  it("are the team id in the single-token mode, and the install's and team's otherwise", () => {
    expect(tenantOf(SINGLE_INSTALL, "T1")).toBe("T1");
    expect(tenantOf("TT1", "T1")).toBe("TT1/T1");
    expect(tenantOf("EE1", "T2")).toBe("EE1/T2");
    expect(isTenantOf("EE1", "EE1/T2")).toBe(true);
    expect(isTenantOf("TT1", "TT10/T10")).toBe(false);
    expect(isTenantOf("TT1", "TT2/T1")).toBe(false);
    expect(isTenantOf(SINGLE_INSTALL, "T1")).toBe(true);
  });
});
