import { slackEventsSuite } from "./slack-events.suite.ts";

// The single-token mode (SLACK_BOT_TOKEN); slack-events.oauth.test.ts runs the same suite with installs by OAuth.
slackEventsSuite("single");
