/**
 * The Redis that the tests needing one use: `REDIS_URL`, or none when it is unset or blank,
 * and those tests skip (a developer's machine may have no Redis; `npm test` needs none).
 * CI sets REQUIRE_REDIS=1, as it sets REQUIRE_FFMPEG=1: there a missing REDIS_URL fails the
 * run instead of skipping them. Every test that needs Redis reads it here, not from
 * `process.env`, so that one spelling decides for all.
 */
export const REDIS_URL: string | undefined = process.env.REDIS_URL?.trim() || undefined;
if (REDIS_URL === undefined && process.env.REQUIRE_REDIS === "1") {
  throw new Error("REDIS_URL must be set (REQUIRE_REDIS=1): REDIS_URL=redis://127.0.0.1:6379, say");
}

/** Whether the Redis tests run: `describe.skipIf(!HAS_REDIS)`. */
export const HAS_REDIS = REDIS_URL !== undefined;

/**
 * {@link REDIS_URL} in a test that runs only with it, on database `db` when given (a test
 * that empties a database keeps to one of its own).
 */
export function redisUrl(db?: number): string {
  if (REDIS_URL === undefined) throw new Error("REDIS_URL is not set: skip this test without it");
  if (db === undefined) return REDIS_URL;
  const url = new URL(REDIS_URL);
  url.pathname = `/${db}`;
  return url.toString();
}
