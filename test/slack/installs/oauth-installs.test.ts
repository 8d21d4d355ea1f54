import { describe, expect, it } from "vitest";
import { consentPageOf } from "../../../src/slack/installs/oauth-installs.ts";

describe("the consent page /slack/install sends the browser to", () => {
  it("is on the host of SLACK_API_URL: slack.com's by default, GovSlack's or a test Slack's otherwise", () => {
    expect(consentPageOf("https://slack.com/api/")).toBe("https://slack.com/oauth/v2/authorize");
    expect(consentPageOf("https://slack-gov.com/api/")).toBe(
      "https://slack-gov.com/oauth/v2/authorize",
    );
    expect(consentPageOf("http://127.0.0.1:4321/api/")).toBe(
      "http://127.0.0.1:4321/oauth/v2/authorize",
    );
  });
});
