import { forgetting } from "./oauth-forget.suite.ts";

// Installs by OAuth over HTTP: Slack's events signed to /slack/events (oauth-forget.suite.ts).
forgetting("http");
