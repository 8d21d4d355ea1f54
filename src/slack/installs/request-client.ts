import { AsyncLocalStorage } from "node:async_hooks";
import { type WebAPICallResult, WebClient, type WebClientOptions } from "@slack/web-api";

/** What Bolt authorised a request with: the install's bot token and the request's workspace. */
export interface RequestAuth {
  botToken: string;
  teamId: string | undefined;
}

const current = new AsyncLocalStorage<RequestAuth>();

/**
 * Runs `next` (the rest of Bolt's middleware and the listeners) with the request's
 * authorisation at hand, for {@link RequestAuthorizedClient}.
 */
export function withRequestAuth<T>(auth: RequestAuth | undefined, next: () => T): T {
  return auth === undefined ? next() : current.run(auth, next);
}

/**
 * With installs by OAuth, the client listeners speak and look up through (`SlackResponder`,
 * `SlackDirectory`): each call made while a Slack request is handled carries the token Bolt
 * authorised that request with, and its workspace as `team_id` (as Bolt's own per-request
 * client does: an org-wide token needs it for methods that name no conversation). So a
 * listener answers a workspace with that workspace's install, whatever install answered the
 * request before. Outside a request it has no token: the job runner has clients of its own.
 */
export class RequestAuthorizedClient extends WebClient {
  constructor(options: WebClientOptions) {
    super(undefined, options);
  }

  override apiCall(
    method: string,
    options: Record<string, unknown> = {},
  ): Promise<WebAPICallResult> {
    const auth = current.getStore();
    if (auth === undefined || options.token !== undefined) return super.apiCall(method, options);
    return super.apiCall(method, {
      ...(auth.teamId === undefined ? {} : { team_id: auth.teamId }),
      ...options,
      token: auth.botToken,
    });
  }
}
