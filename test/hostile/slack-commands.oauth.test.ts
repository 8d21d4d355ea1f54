import { slackCommandsSuite } from "./slack-commands.suite.ts";

// Installs by OAuth: the workspace installed the app through /slack/install (slack-commands.suite.ts).
slackCommandsSuite("oauth");
