import { SINGLE_INSTALL } from "./install-key.ts";

/** Where Slack calls get an installation's bot token. */
export interface TokenSource {
  /**
   * The bot token of the installation (its key, `installKeyOf`), refreshed first when token
   * rotation is on and it expires soon.
   * @throws InstallUnavailable when the installation is gone or can no longer get a token.
   */
  botToken(install: string): Promise<string>;
  /**
   * Slack refused `token` with `error` (`token_expired`, `invalid_auth`, `token_revoked`):
   * a fresh token to send the call with once more, or undefined when there is none to try.
   */
  refused(install: string, token: string, error: string): Promise<string | undefined>;
}

/** The installation is not installed (any more), or its tokens were revoked. */
export class InstallUnavailable extends Error {
  readonly install: string;
  readonly reason: "not_installed" | "revoked";

  constructor(install: string, reason: "not_installed" | "revoked") {
    super(`installation ${install} is ${reason === "revoked" ? "revoked" : "not installed"}`);
    this.name = "InstallUnavailable";
    this.install = install;
    this.reason = reason;
  }
}

/** The single-token mode: one installation, one token that never changes. */
export function singleTokenSource(token: string): TokenSource {
  return {
    async botToken(install) {
      if (install !== SINGLE_INSTALL) throw new InstallUnavailable(install, "not_installed");
      return token;
    },
    async refused() {
      return undefined;
    },
  };
}
