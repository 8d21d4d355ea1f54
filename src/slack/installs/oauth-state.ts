import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import type { InstallURLOptions, StateStore } from "@slack/oauth";
import type { Store } from "../../store/index.ts";

// CommonJS, and loaded only with installs by OAuth, as oauth-installs.ts loads the installer.
const require = createRequire(import.meta.url);

/**
 * The OAuth state of an install (https://docs.slack.dev/authentication/installing-with-oauth:
 * "state … to avoid forgery attacks"): signed with SLACK_STATE_SECRET by `@slack/oauth`'s
 * own state store, good for 10 minutes, carried in a cookie of the browser that started
 * the install, and used once.
 */

/** The cookie `@slack/oauth`'s redirect handler reads the state from. */
export const STATE_COOKIE = "slack-app-oauth-state";

/** How long a state is good for, in seconds (the installer's default). */
export const STATE_LIFETIME_S = 600;

/**
 * How long a used state stays claimed: past its own lifetime, so that a replica whose wall
 * clock is behind the one that signed it (up to 10 minutes) still finds it spent.
 */
const CLAIM_TTL_MS = 2 * STATE_LIFETIME_S * 1000;

/** A redirect that brings back a state already used (or being used) by another. */
export class SpentStateError extends Error {
  readonly code = "slack_oauth_invalid_state";

  constructor() {
    super("The state of this install was already used");
    this.name = this.constructor.name;
  }
}

/**
 * `@slack/oauth`'s state store (the signed, 10-minute state), whose check also claims the
 * state in `store` when a redirect brings it back: a second redirect with it — the same
 * browser's cookie and state, with a fresh code of Slack's for another workspace — is
 * refused on every replica sharing the store, and after a restart. The claim is taken
 * before the code is exchanged; a state whose exchange failed is spent too (a person starts
 * again from the install page). The store is asked under a hash: the state itself is
 * never written.
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
 * The `Set-Cookie` of a new state. `SameSite=Lax`: the browser sends it on Slack's
 * redirect back (a top-level GET navigation), never on another site's embedded request or
 * cross-site POST; the installer's own cookie has no SameSite and no option for one. `Secure` and `HttpOnly`
 * as the installer sets them.
 */
export function stateCookie(state: string): string {
  return `${STATE_COOKIE}=${state}; Secure; HttpOnly; SameSite=Lax; Path=/; Max-Age=${STATE_LIFETIME_S}`;
}
