import { connectChannelJourney } from "./connect-channel.suite.ts";

// Installs by OAuth: the workspace installed the app through /slack/install (connect-channel.suite.ts).
connectChannelJourney("oauth");
