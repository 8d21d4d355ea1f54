import { slackViewsSuite } from "./slack-views.suite.ts";

// The single-token mode (SLACK_BOT_TOKEN); slack-views.oauth.test.ts runs the same suite with installs by OAuth.
slackViewsSuite("single");
