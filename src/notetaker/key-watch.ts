import type { Logger } from "pino";

/** The person running the bot reads it in the log: the variable, and what to do. */
export const API_KEY_REFUSED =
  "The Note Service refused NOTE_TAKER_API_KEY (HTTP 401 or 403), so every recording fails until it is fixed: put the key your Note Service provider gave you in NOTE_TAKER_API_KEY (and check that NOTE_TAKER_BASE_URL is their address), restart the bot, then press Retry on the failed recordings.";

/**
 * Watches the Note Service's answers to calls made with the key (`onRequest` of
 * NoteTakerClient): the first refusal (401/403) is one error line naming
 * NOTE_TAKER_API_KEY, not one per job or per call; an accepted call re-arms it, so a key
 * revoked later is told again. Each job still says its own sentence in its thread.
 *
 * The API has no call meant to check a key, so nothing is asked at start-up: polling an
 * invented task id answers 404 for a good key only when the service checks the key before
 * looking the task up, and a service that answers 403 for a task the key does not own
 * would make a good key look refused. Neither is documented; a false alarm at every start
 * would teach people to ignore this line.
 */
export function watchApiKey(logger: Logger): (operation: string, outcome: string) => void {
  let told = false;
  return (operation, outcome) => {
    if (outcome === "ok") told = false;
    if (outcome !== "auth" || told) return;
    told = true;
    logger.error({ operation }, API_KEY_REFUSED);
  };
}
