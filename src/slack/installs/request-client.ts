import { AsyncLocalStorage } from "node:async_hooks";
import { type WebAPICallResult, WebClient, type WebClientOptions } from "@slack/web-api";

export interface RequestAuth {
  botToken: string;
  teamId: string | undefined;
}

const current = new AsyncLocalStorage<RequestAuth>();

export function withRequestAuth<T>(auth: RequestAuth | undefined, next: () => T): T {
  return auth === undefined ? next() : current.run(auth, next);
}

/**
 * With installs by OAuth, the listeners' client: each call carries the token Bolt authorised the
 * request with and its workspace as `team_id` (an org-wide token needs it), as Bolt's own does.
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
