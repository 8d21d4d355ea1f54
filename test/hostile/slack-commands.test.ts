import { slackCommandsSuite } from "./slack-commands.suite.ts";

// The single-token mode (SLACK_BOT_TOKEN); slack-commands.oauth.test.ts runs the same suite with installs by OAuth.
slackCommandsSuite("single");
