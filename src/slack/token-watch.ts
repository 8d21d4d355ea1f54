import type { Logger } from "../logger.ts";
import { botTokenRefusedNow, TOKEN_REFUSALS } from "./slack-troubles.ts";

/** Tells the person running the bot when Slack stops taking the bot token, once. */
export interface TokenWatch {
  /** From now on refusals are told (before, the start-up says why it stops). */
  arm(): void;
  /** A Slack call with the bot token failed with this platform error (any error code). */
  failed(code: string | undefined): void;
  /** Slack took the bot token again (`auth.test` passed). */
  accepted(): void;
}

/**
 * A token revoked while the bot runs (the app removed from the workspace, the token
 * rotated by hand) makes every Slack call fail. Each caller sees only its own failure; this
 * turns them into one error line naming SLACK_BOT_TOKEN and where a new one is found, again
 * only after Slack took the token in between. `onRefused` lets readiness ask Slack now.
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
