import { permissionsJourney } from "./permissions-journey.suite.ts";

// The single-token mode (SLACK_BOT_TOKEN); permissions-journey.oauth.test.ts runs the same suite with installs by OAuth.
permissionsJourney("single");
