import { slackRawBodiesSuite } from "./slack-raw-bodies.suite.ts";

// The single-token mode (SLACK_BOT_TOKEN); slack-raw-bodies.oauth.test.ts runs the same suite with installs by OAuth.
slackRawBodiesSuite("single");
