/**
 * How long each fault lasts. The durations (30 s, 60 s, 2 min) are the default;
 * FAULT_SCALE (e.g. 0.1) shortens every one of them for CI. A fault never lasts less than
 * {@link MIN_FAULT_MS}: the bot's readiness looks at the store every 5 s (each look allowed
 * 3 s), so a shorter fault could end before `/readyz` is due to see it.
 */
import { z } from "zod";

const scaleSchema = z.coerce.number().positive().max(1).default(1);

export const FAULT_SCALE = scaleSchema.parse(process.env.FAULT_SCALE);

export const MIN_FAULT_MS = 12_000;

/** A fault the issue names as lasting `seconds`, at this run's scale. */
export function faultMs(seconds: number): number {
  return Math.max(MIN_FAULT_MS, Math.round(seconds * 1000 * FAULT_SCALE));
}

/**
 * Slack's retries of an event delivery it counts as failed (no 200 within 3 s): nearly at
 * once, after 1 minute and after 5 minutes (https://docs.slack.dev/apis/events-api/,
 * "Retries"), at this run's scale.
 */
export function slackRetryDelaysMs(): number[] {
  return [1_000, 60_000, 300_000].map((ms) => Math.max(1_000, Math.round(ms * FAULT_SCALE)));
}

/** Slack gives up on a request to the app after 3 s (events, commands, clicks alike). */
export const SLACK_REQUEST_TIMEOUT_MS = 3_000;
