import { StartupError } from "../startup-error.ts";
import { optional } from "../util/optional.ts";
import { openMemoryStore, openSqliteStore } from "./sqlite-store.ts";
import type { OpenStoreOptions, Store } from "./store.ts";

export {
  type DueClaim,
  type EpochCheck,
  INDEX_LIMIT,
  NAMESPACES,
  type Namespace,
  type Store,
  StoreClosedError,
  StoreError,
} from "./store.ts";

export const DEFAULT_KEY_PREFIX = "meeting-notes";

/**
 * Opens the store STORE_URL names: `sqlite://PATH` (relative to the working directory, or
 * `sqlite:///abs/path`), `redis://` or `rediss://`, or `memory://` (tests).
 */
export async function openStore(url: string, options: OpenStoreOptions = {}): Promise<Store> {
  const keyPrefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
  const common =
    options.logger === undefined ? { keyPrefix } : { keyPrefix, logger: options.logger };
  const timeout = optional("timeoutMs", options.timeoutMs);
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  switch (scheme) {
    case "sqlite": {
      const path = sqlitePathOf(url) ?? "";
      if (path === "") {
        throw new StartupError(
          "STORE_URL sqlite:// needs a file path, such as sqlite://data/meeting-notes.sqlite.",
        );
      }
      return openSqliteStore(path, common);
    }
    case "redis":
    case "rediss": {
      // Loaded only when asked for: the Redis client weighs on a SQLite bot's start-up.
      const { openRedisStore } = await import("./open-redis-store.ts");
      return openRedisStore(url, { ...common, ...timeout });
    }
    case "memory":
      return openMemoryStore(common);
    default:
      // Only the scheme is quoted: the rest of a URL may hold a password.
      throw new StartupError(
        `STORE_URL ${scheme === undefined ? "has no scheme" : `has an unsupported scheme "${scheme}:"`}: use sqlite://PATH, redis://HOST[:PORT], rediss://HOST[:PORT] or memory://`,
      );
  }
}

/** The file of a `sqlite://PATH` store URL, as given; undefined for any other store. */
export function sqlitePathOf(url: string): string | undefined {
  if (!/^sqlite:/i.test(url)) return undefined;
  return url.slice("sqlite:".length).replace(/^\/\//, "");
}
