import { slackActionsSuite } from "./slack-actions.suite.ts";

// Installs by OAuth: the workspace installed the app through /slack/install (slack-actions.suite.ts).
slackActionsSuite("oauth");
