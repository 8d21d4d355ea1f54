import type { WebClient } from "@slack/web-api";
import { LRUCache } from "lru-cache";
import type { FetchFunction } from "../rate-budget/slack-budget.ts";
import { callScopeOf, callTeamOf, rateWorkspaceOf } from "./install-key.ts";
import { installToken, renewRefusedToken, withBearer } from "./renew-refused-token.ts";
import type { TokenSource } from "./token-source.ts";

/** Installs whose clients are kept at once; one past it drops the longest unused. */
const MAX_INSTALLS = 500;

/** The job runner's two clients of one install (see `SlackGatewayOptions`). */
export interface InstallClients {
  client: WebClient;
  urgentClient: WebClient;
}

/**
 * A `fetch` that sends each request with the install's bot token as it is now (rotation
 * may have replaced it since the last call), renewed once when Slack refuses it
 * ({@link renewRefusedToken}). `install`: the install the request is made for, read per
 * request.
 */
export function withInstallToken(
  fetch: FetchFunction,
  tokens: TokenSource,
  install: () => string,
): FetchFunction {
  const renewing = renewRefusedToken(fetch, tokens, install);
  return async (input, init = {}) =>
    renewing(input, withBearer(init, await installToken(tokens, install())));
}

/**
 * Builds a client without a token, its `fetch` the budget's passed through `wrap`, and with
 * `teamId` (the WebClient's option of that name) when its calls must name their workspace.
 * `rateWorkspace`: the workspace whose Slack rate limits its calls count against.
 */
export type MakeInstallClient = (
  urgent: boolean,
  wrap: (fetch: FetchFunction) => FetchFunction,
  teamId: string | undefined,
  rateWorkspace: string,
) => WebClient;

/**
 * The job runner's Web API clients per install, made on first use and kept (bounded):
 * `makeClient` builds one with the budget's `fetch` the caller chooses, and this wraps that
 * `fetch` with the install's token ({@link withInstallToken}). An org-wide install has
 * clients per workspace of its organisation, each naming its workspace on every call.
 */
export class InstallClientCache {
  readonly #tokens: TokenSource;
  readonly #make: MakeInstallClient;
  readonly #cache: LRUCache<string, InstallClients>;

  constructor(options: { tokens: TokenSource; makeClient: MakeInstallClient; max?: number }) {
    this.#tokens = options.tokens;
    this.#make = options.makeClient;
    this.#cache = new LRUCache({ max: options.max ?? MAX_INSTALLS });
  }

  /**
   * The clients of `install` for calls in workspace `teamId` (a job's `origin.teamId`): the
   * install's own, or for an org-wide install its clients of that workspace.
   */
  clientsFor(install: string, teamId: string): InstallClients {
    const key = callScopeOf(install, teamId);
    const kept = this.#cache.get(key);
    if (kept !== undefined) return kept;
    const wrap = (fetch: FetchFunction) => withInstallToken(fetch, this.#tokens, () => install);
    const team = callTeamOf(install, teamId);
    const rateWorkspace = rateWorkspaceOf(install, teamId);
    const made = {
      client: this.#make(false, wrap, team, rateWorkspace),
      urgentClient: this.#make(true, wrap, team, rateWorkspace),
    };
    this.#cache.set(key, made);
    return made;
  }
}
