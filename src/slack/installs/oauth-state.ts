import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import type { InstallURLOptions, StateStore } from "@slack/oauth";
import type { Store } from "../../store/index.ts";

// CommonJS; loaded only with installs by OAuth.
const require = createRequire(import.meta.url);

// The install's OAuth state ("to avoid forgery attacks",
// https://docs.slack.dev/authentication/installing-with-oauth): signed, 10 minutes, used once.

/** The cookie `@slack/oauth`'s redirect handler reads the state from. */
export const STATE_COOKIE = "slack-app-oauth-state";

export const STATE_LIFETIME_S = 600;

/** Past its lifetime: a replica whose clock is behind the signer's still finds it spent. */
const CLAIM_TTL_MS = 2 * STATE_LIFETIME_S * 1000;

export class SpentStateError extends Error {
  readonly code = "slack_oauth_invalid_state";

  constructor() {
    super("The state of this install was already used");
    this.name = this.constructor.name;
  }
}

/**
 * `@slack/oauth`'s signed state store whose check also claims the state in `store` (under a
 * hash), before the code is exchanged: a second redirect with it is refused on every replica.
 */
export function onceStateStore(o: { secret: string; store: Store }): StateStore {
  const { ClearStateStore } = require("@slack/oauth") as typeof import("@slack/oauth");
  const signed = new ClearStateStore(o.secret, STATE_LIFETIME_S);
  return {
    generateStateParam: (options: InstallURLOptions, now: Date) =>
      signed.generateStateParam(options, now),
    async verifyStateParam(now: Date, state: string): Promise<InstallURLOptions> {
      // A forged or expired state is refused before anything is claimed for it.
      const options = await signed.verifyStateParam(now, state);
      const key = `oauth-state:${createHash("sha256").update(state).digest("base64url")}`;
      if (!(await o.store.claim(key, CLAIM_TTL_MS))) throw new SpentStateError();
      return options;
    },
  };
}

/**
 * `SameSite=Lax`: sent on Slack's top-level redirect back, never on another site's embedded request
 * or POST.
 */
export function stateCookie(state: string): string {
  return `${STATE_COOKIE}=${state}; Secure; HttpOnly; SameSite=Lax; Path=/; Max-Age=${STATE_LIFETIME_S}`;
}
