import { ErrorCode, type Logger as SlackLogger, WebClient } from "@slack/web-api";
import { optional } from "../util/optional.ts";

/** Where `auth.test` is asked, with which token, within how long. */
export interface SlackAuthProbeOptions {
  /** Undefined with installs by OAuth: there is no one bot token to ask about. */
  botToken: string | undefined;
  /** SLACK_API_URL. */
  apiUrl: string;
  /** The longest one `auth.test` may take. */
  timeoutMs: number;
  logger?: SlackLogger;
}

/**
 * Asks Slack's `auth.test` whether it accepts the bot token: one try, no retries (the
 * readiness check runs again soon; the bot's own clients retry for minutes, which is why
 * they cannot answer a probe), within `timeoutMs`, outside the bot's rate budget so it never
 * waits behind the job runner. A rate-limited answer is an answer: Slack is reachable.
 *
 * With installs by OAuth there is no bot token of the deployment: each install's token is
 * checked where it is used (Bolt's authorize, the install's clients), and an install whose
 * token was revoked must not make the whole bot unready for every other install. The probe
 * then asks `api.test`, which needs no token: Slack's Web API answers at SLACK_API_URL.
 */
export function slackAuthProbe(options: SlackAuthProbeOptions): () => Promise<void> {
  const client = new WebClient(options.botToken, {
    slackApiUrl: options.apiUrl,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: options.timeoutMs,
    ...optional("logger", options.logger),
  });
  return async () => {
    try {
      if (options.botToken === undefined) await client.api.test();
      else await client.auth.test();
    } catch (error) {
      if ((error as { code?: unknown }).code === ErrorCode.RateLimitedError) return;
      throw error;
    }
  };
}
