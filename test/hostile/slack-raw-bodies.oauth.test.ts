import { slackRawBodiesSuite } from "./slack-raw-bodies.suite.ts";

// Installs by OAuth: the workspace installed the app through /slack/install (slack-raw-bodies.suite.ts).
slackRawBodiesSuite("oauth");
