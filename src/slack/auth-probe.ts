import { ErrorCode, type Logger as SlackLogger, WebClient } from "@slack/web-api";
import { optional } from "../util/optional.ts";

export interface SlackAuthProbeOptions {
  /** Undefined with installs by OAuth. */
  botToken: string | undefined;
  apiUrl: string;
  timeoutMs: number;
  logger?: SlackLogger;
}

/**
 * Asks `auth.test` whether Slack takes the bot token: one try, outside the rate budget; a 429
 * is an answer (Slack is up). With installs by OAuth it asks `api.test`, which needs no token:
 * one install's revoked token must not make the whole bot unready.
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
