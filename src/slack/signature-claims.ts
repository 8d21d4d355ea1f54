import type { Logger } from "pino";
import { BriefClaims } from "../store/brief-claims.ts";
import type { Store } from "../store/index.ts";

/**
 * Signatures of Slack requests, remembered in the store so that every replica refuses a
 * replay, and in this process too: while the store fails, a replay to this replica is still
 * refused, and Slack's request goes on to its listener, which keeps what the store cannot
 * take (an upload) or says why it cannot be done (a click), instead of a 500 that Slack
 * retries three times within five minutes and counts against the app
 * (https://docs.slack.dev/apis/events-api/, "Retries"), and never retries for a click.
 */
export function claimSignatures(store: Store, logger: Logger) {
  const here = new BriefClaims();
  return async (signature: string, ttlMs: number): Promise<boolean> => {
    if (!here.claim(signature, ttlMs)) return false;
    return store.claimBriefly(`slack-signature:${signature}`, ttlMs).catch((error: unknown) => {
      logger.warn({ err: error }, "store failed: a request signature is remembered here only");
      return true;
    });
  };
}
