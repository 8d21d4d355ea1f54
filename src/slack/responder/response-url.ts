import type { Logger } from "pino";
import { type Dispatcher, getGlobalDispatcher, request } from "undici";
import type { MessageContent } from "../views/message-content.ts";

const TIMEOUT_MS = 10_000;

/** Posts an ephemeral reply to a slash command's `response_url`; failures are only logged. */
export type Responder = (responseUrl: string, content: MessageContent) => Promise<void>;

/**
 * One JSON POST on undici's pool, cheaper in CPU than Bolt's `respond()`
 * (support/bench/RESULTS.md). The URL comes from a signed Slack request and carries no token.
 */
export function createResponder(options: { logger: Logger; dispatcher?: Dispatcher }): Responder {
  const dispatcher = options.dispatcher ?? getGlobalDispatcher();
  return async (responseUrl, content) => {
    try {
      const response = await request(responseUrl, {
        method: "POST",
        headers: { "content-type": "application/json; charset=utf-8" },
        body: JSON.stringify({ response_type: "ephemeral", ...content }),
        dispatcher,
        headersTimeout: TIMEOUT_MS,
        bodyTimeout: TIMEOUT_MS,
      });
      const text = (await response.body.text()).slice(0, 200);
      if (response.statusCode >= 300) {
        options.logger.warn({ status: response.statusCode, text }, "response_url refused a reply");
      }
    } catch (error) {
      options.logger.warn({ err: error }, "could not post to response_url");
    }
  };
}
