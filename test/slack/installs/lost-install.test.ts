import { WebClient } from "@slack/web-api";
import { describe, expect, it } from "vitest";
import { decideFailure } from "../../../src/jobs/index.ts";
import { toGatewayError } from "../../../src/slack/gateway/slack-errors.ts";
import { withInstallToken } from "../../../src/slack/installs/install-clients.ts";
import { InstallUnavailable, type TokenSource } from "../../../src/slack/installs/token-source.ts";

/**
 * An install that lost its tokens (a refresh token Slack refused, an uninstall): its job's
 * calls are never sent, fail without a log line of the client's own, and end the job with
 * `install_unavailable` — never a `token_expired` that reads as Slack refusing a message.
 */
function revokedAfter(calls: number): TokenSource & { asked: number } {
  return {
    asked: 0,
    async botToken(install) {
      this.asked += 1;
      if (this.asked > calls) throw new InstallUnavailable(install, "revoked");
      return "xoxe.xoxb-1-old";
    },
    async refused() {
      return undefined;
    },
  };
}

function client(tokens: TokenSource) {
  const sent: string[] = [];
  const warned: string[] = [];
  const fetch = async (input: string | URL | Request) => {
    sent.push(String(input));
    return new Response(JSON.stringify({ ok: false, error: "token_expired" }), {
      headers: { "content-type": "application/json" },
    });
  };
  const logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (...msg: unknown[]) => warned.push(msg.map(String).join(" ")),
    error: (...msg: unknown[]) => warned.push(msg.map(String).join(" ")),
    setLevel: () => undefined,
    getLevel: () => "info" as never,
    setName: () => undefined,
  };
  const web = new WebClient(undefined, {
    slackApiUrl: "https://slack.test/api/",
    retryConfig: { retries: 0 },
    logger,
    fetch: withInstallToken(fetch, tokens, () => "TT0BETA"),
  });
  return { web, sent, warned };
}

describe("a job's call for an install without tokens", () => {
  it("is never sent, and the client says nothing of it", async () => {
    const c = client(revokedAfter(0));
    const error = await c.web.chat.postMessage({ channel: "C1", text: "hi" }).catch((e) => e);
    expect(c.sent).toEqual([]);
    expect(c.warned).toEqual([]);
    const port = toGatewayError(error, "chat.postMessage");
    expect(port).toMatchObject({ transient: false, failure: "install_unavailable" });
    expect(decideFailure(port, 0)).toEqual({
      kind: "fail",
      failure: { code: "install_unavailable" },
      retryable: true,
    });
  });

  it("fails as one without a token when the refused token cannot be renewed because the install lost its tokens", async () => {
    // The first ask gives the expired token; the refresh then finds the install revoked.
    const c = client(revokedAfter(1));
    const error = await c.web.chat.postMessage({ channel: "C1", text: "hi" }).catch((e) => e);
    expect(c.sent).toHaveLength(1);
    expect(toGatewayError(error, "chat.postMessage").failure).toBe("install_unavailable");
  });

  it("keeps Slack's refusal when no fresh token comes and the install still has its token", async () => {
    const c = client(revokedAfter(Number.POSITIVE_INFINITY));
    const error = await c.web.chat.postMessage({ channel: "C1", text: "hi" }).catch((e) => e);
    expect(error.data?.error).toBe("token_expired");
    expect(toGatewayError(error, "chat.postMessage").failure).toBeUndefined();
  });

  it("maps a download's own InstallUnavailable the same way", () => {
    const port = toGatewayError(new InstallUnavailable("TT0BETA", "revoked"), "download");
    expect(port).toMatchObject({ transient: false, failure: "install_unavailable" });
  });
});
