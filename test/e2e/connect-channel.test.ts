import { connectChannelJourney } from "./connect-channel.suite.ts";

// The single-token mode (SLACK_BOT_TOKEN); connect-channel.oauth.test.ts runs the same suite with installs by OAuth.
connectChannelJourney("single");
