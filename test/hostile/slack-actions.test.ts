import { slackActionsSuite } from "./slack-actions.suite.ts";

// The single-token mode (SLACK_BOT_TOKEN); slack-actions.oauth.test.ts runs the same suite with installs by OAuth.
slackActionsSuite("single");
