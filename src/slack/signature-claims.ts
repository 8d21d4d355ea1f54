import type { Logger } from "pino";
import { BriefClaims } from "../store/brief-claims.ts";
import type { Store } from "../store/index.ts";

/**
 * Request signatures remembered in the store (every replica refuses a replay) and here: while
 * the store fails the request still reaches its listener rather than a 500 that Slack retries
 * and counts against the app (https://docs.slack.dev/apis/events-api/, "Retries").
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
