import { httpSurfaceSuite } from "./http-surface.suite.ts";

// The single-token mode (SLACK_BOT_TOKEN); http-surface.oauth.test.ts runs the same suite with installs by OAuth.
httpSurfaceSuite("single");
