import { slackViewsSuite } from "./slack-views.suite.ts";

// Installs by OAuth: the workspace installed the app through /slack/install (slack-views.suite.ts).
slackViewsSuite("oauth");
