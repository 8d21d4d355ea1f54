import { httpSurfaceSuite } from "./http-surface.suite.ts";

// Installs by OAuth: the workspace installed the app through /slack/install (http-surface.suite.ts).
httpSurfaceSuite("oauth");
