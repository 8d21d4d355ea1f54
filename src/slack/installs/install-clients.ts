import type { WebClient } from "@slack/web-api";
import { LRUCache } from "lru-cache";
import type { FetchFunction } from "../rate-budget/slack-budget.ts";
import { callTeamOf, rateWorkspaceOf } from "./install-key.ts";
import { installToken, renewRefusedToken, withBearer } from "./renew-refused-token.ts";
import type { TokenSource } from "./token-source.ts";

const MAX_INSTALLS = 500;

export interface InstallClients {
  client: WebClient;
  urgentClient: WebClient;
}

/** Each request carries the install's token as it is now (rotation may have replaced it). */
export function withInstallToken(
  fetch: FetchFunction,
  tokens: TokenSource,
  install: () => string,
): FetchFunction {
  const renewing = renewRefusedToken(fetch, tokens, install);
  return async (input, init = {}) =>
    renewing(input, withBearer(init, await installToken(tokens, install())));
}

export type MakeInstallClient = (
  urgent: boolean,
  wrap: (fetch: FetchFunction) => FetchFunction,
  teamId: string | undefined,
  rateWorkspace: string,
) => WebClient;

/** The job runner's clients per install (org-wide: per workspace, naming it on every call). */
export class InstallClientCache {
  readonly #tokens: TokenSource;
  readonly #make: MakeInstallClient;
  readonly #cache: LRUCache<string, InstallClients>;

  constructor(options: { tokens: TokenSource; makeClient: MakeInstallClient }) {
    this.#tokens = options.tokens;
    this.#make = options.makeClient;
    this.#cache = new LRUCache({ max: MAX_INSTALLS });
  }

  clientsFor(install: string, teamId: string): InstallClients {
    const team = callTeamOf(install, teamId);
    // One per install, and per workspace of an org-wide one: its calls differ by `team_id`.
    const key = team === undefined ? install : `${install}/${team}`;
    const kept = this.#cache.get(key);
    if (kept !== undefined) return kept;
    const wrap = (fetch: FetchFunction) => withInstallToken(fetch, this.#tokens, () => install);
    const rateWorkspace = rateWorkspaceOf(install, teamId);
    const made = {
      client: this.#make(false, wrap, team, rateWorkspace),
      urgentClient: this.#make(true, wrap, team, rateWorkspace),
    };
    this.#cache.set(key, made);
    return made;
  }
}
