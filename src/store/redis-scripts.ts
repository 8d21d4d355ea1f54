/**
 * Lua scripts for the Redis store. Redis runs a script atomically, which is what turns
 * "check the token, then act" into one step no other replica can slip between.
 */

/** KEYS[1] lease, ARGV[1] token, ARGV[2] ttl ms → 1 when renewed, 0 when not the holder. */
export const RENEW_LEASE = `
if redis.call("GET", KEYS[1]) == ARGV[1] then
  return redis.call("PEXPIRE", KEYS[1], ARGV[2])
end
return 0`;

/** KEYS[1] lease, ARGV[1] token → 1 when released, 0 when not the holder (compare-and-delete). */
export const RELEASE_LEASE = `
if redis.call("GET", KEYS[1]) == ARGV[1] then
  return redis.call("DEL", KEYS[1])
end
return 0`;

/** KEYS[1] list, ARGV[1] job id, ARGV[2] limit → moves/puts the id first, keeps `limit`. */
export const PUSH_INDEX = `
redis.call("LREM", KEYS[1], 0, ARGV[1])
redis.call("LPUSH", KEYS[1], ARGV[1])
redis.call("LTRIM", KEYS[1], 0, tonumber(ARGV[2]) - 1)
return 1`;

/**
 * KEYS[1] active set, KEYS[2] set of stage names; ARGV[1] job id, ARGV[2] prefix of the
 * stage sets, ARGV[3] stage → puts the id in the active set and in that stage's set only.
 */
export const SET_ACTIVE_STAGE = `
redis.call("SADD", KEYS[1], ARGV[1])
redis.call("SADD", KEYS[2], ARGV[3])
for _, stage in ipairs(redis.call("SMEMBERS", KEYS[2])) do
  if stage ~= ARGV[3] then redis.call("SREM", ARGV[2] .. stage, ARGV[1]) end
end
redis.call("SADD", ARGV[2] .. ARGV[3], ARGV[1])
return 1`;

/** KEYS[1] active set, KEYS[2] set of stage names; ARGV[1] job id, ARGV[2] prefix. */
export const REMOVE_ACTIVE = `
redis.call("SREM", KEYS[1], ARGV[1])
for _, stage in ipairs(redis.call("SMEMBERS", KEYS[2])) do
  redis.call("SREM", ARGV[2] .. stage, ARGV[1])
end
return 1`;
