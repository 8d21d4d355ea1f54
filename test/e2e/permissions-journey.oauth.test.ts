import { permissionsJourney } from "./permissions-journey.suite.ts";

// Installs by OAuth: the workspace installed the app through /slack/install (permissions-journey.suite.ts).
permissionsJourney("oauth");
