import type { Logger } from "../logger.ts";
import { botTokenRefusedNow, TOKEN_REFUSALS } from "./slack-troubles.ts";

/** Tells the person running the bot when Slack stops taking the bot token, once. */
export interface TokenWatch {
  /** Refusals are told from now on (before, the start-up says why it stops). */
  arm(): void;
  failed(code: string | undefined): void;
  accepted(): void;
}

/**
 * Turns every call's token refusal into one error line naming SLACK_BOT_TOKEN, told again only
 * after Slack took the token in between. `onRefused` lets readiness ask Slack now.
 */
export function createTokenWatch(logger: Logger, onRefused: () => void = () => {}): TokenWatch {
  let armed = false;
  let told = false;
  return {
    arm() {
      armed = true;
    },
    failed(code) {
      if (!armed || code === undefined || !TOKEN_REFUSALS.has(code) || told) return;
      told = true;
      logger.error({ slackError: code }, botTokenRefusedNow(code));
      onRefused();
    },
    accepted() {
      told = false;
    },
  };
}
