import { SINGLE_INSTALL } from "../../jobs/index.ts";

/** Where Slack calls get an installation's bot token. */
export interface TokenSource {
  /** @throws InstallUnavailable when the installation is gone or can no longer get a token. */
  botToken(install: string): Promise<string>;
  /** A fresh token for a call Slack refused `token` for, or undefined when there is none. */
  refused(install: string, token: string, error: string): Promise<string | undefined>;
}

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
