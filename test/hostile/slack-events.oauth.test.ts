import { slackEventsSuite } from "./slack-events.suite.ts";

// Installs by OAuth: the workspace installed the app through /slack/install (slack-events.suite.ts).
slackEventsSuite("oauth");
