import { forgetting } from "./oauth-forget.suite.ts";

// Installs by OAuth in Socket Mode: Slack's events over the socket (oauth-forget.suite.ts).
forgetting("socket");
