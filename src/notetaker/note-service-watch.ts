import type { Logger } from "pino";

/** The person running the bot reads these in the log: the variable, and what to do. */
export const API_KEY_REFUSED =
  "The Note Service refused NOTE_TAKER_API_KEY (HTTP 401 or 403), so every recording fails until it is fixed: put the key your Note Service provider gave you in NOTE_TAKER_API_KEY (and check that NOTE_TAKER_BASE_URL is their address), restart the bot, then press Retry on the failed recordings.";
export const BASE_URL_WRONG =
  "The Note Service answered 404 (no such endpoint) to a submission, so NOTE_TAKER_BASE_URL is wrong: it must be the provider's whole API address, ending with its path (such as https://host/api/v1/third-party/note-taker), not the host alone. Correct NOTE_TAKER_BASE_URL, restart the bot, then press Retry on the failed recordings.";
export const BASE_URL_UNREACHABLE =
  "The Note Service at NOTE_TAKER_BASE_URL has not answered for a minute (no connection), so recordings wait: check that NOTE_TAKER_BASE_URL is the provider's address and that this host can reach it. The bot keeps trying on its own.";

/** How long connections may fail, with no answer between, before it is told. */
export const UNREACHABLE_AFTER_MS = 60_000;

export interface NoteServiceWatch {
  onRequest: (operation: string, outcome: string) => void;
  /** Since when no connection has reached the service, once that has lasted long enough. */
  unreachableSince: () => number | undefined;
}

/**
 * Tells the log once per episode, naming the variable, when the Note Service refuses the key,
 * answers 404 to a submission, or cannot be reached for a minute. Nothing is asked at start-up:
 * the API has no call meant to check a key.
 */
export function watchNoteService(
  logger: Logger,
  options: { unreachableAfterMs?: number; now?: () => number } = {},
): NoteServiceWatch {
  const { unreachableAfterMs = UNREACHABLE_AFTER_MS, now = Date.now } = options;
  const told = new Set<string>();
  let failingSince: number | undefined;
  const tell = (what: string, operation: string, line: string) => {
    if (told.has(what)) return;
    told.add(what);
    logger.error({ operation }, line);
  };
  const unreachableSince = () =>
    failingSince !== undefined && now() - failingSince >= unreachableAfterMs
      ? failingSince
      : undefined;
  return {
    onRequest(operation, outcome) {
      if (outcome !== "network") failingSince = undefined;
      if (outcome === "ok") told.clear();
      if (outcome === "auth") tell("auth", operation, API_KEY_REFUSED);
      if (outcome === "address") tell("address", operation, BASE_URL_WRONG);
      if (outcome === "network") {
        failingSince ??= now();
        if (unreachableSince() !== undefined) tell("unreachable", operation, BASE_URL_UNREACHABLE);
      }
    },
    unreachableSince,
  };
}
