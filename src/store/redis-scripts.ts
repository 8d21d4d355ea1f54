import type { DueClaim } from "./store.ts";

/** Redis runs a script atomically: "check the token, then act" is one step. */

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

/**
 * KEYS[1] key, ARGV[1] the serialized entry read, ARGV[2] the one to write, ARGV[3] its ttl
 * ms ("" for none) → 1 when written, 0 when the key no longer holds what was read.
 */
export const COMPARE_AND_SET = `
if redis.call("GET", KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[3] == "" then
  redis.call("SET", KEYS[1], ARGV[2])
else
  redis.call("SET", KEYS[1], ARGV[2], "PX", ARGV[3])
end
return 1`;

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

/**
 * KEYS[1] due sorted set (score: when due); ARGV[1] now, ARGV[2] limit, ARGV[3] lease ttl
 * ms, ARGV[4] lease key prefix, ARGV[5] token prefix → id, token, id, token, …, and last
 * the earliest score left ("" when empty). A due job whose lease is free is leased and
 * moved past the lease; one whose lease is held moves to when that lease ends.
 */
export const CLAIM_DUE = `
local now = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local ttl = tonumber(ARGV[3])
local out = {}
local claimed = 0
if limit > 0 then
  local ids = redis.call("ZRANGEBYSCORE", KEYS[1], "-inf", now, "LIMIT", 0, limit * 2)
  for i, id in ipairs(ids) do
    if claimed >= limit then break end
    local lease = ARGV[4] .. id
    local token = ARGV[5] .. i
    if redis.call("SET", lease, token, "NX", "PX", ttl) then
      redis.call("ZADD", KEYS[1], now + ttl, id)
      claimed = claimed + 1
      out[#out + 1] = id
      out[#out + 1] = token
    else
      local left = redis.call("PTTL", lease)
      if left < 1 then left = ttl end
      redis.call("ZADD", KEYS[1], now + left, id)
    end
  end
end
local first = redis.call("ZRANGE", KEYS[1], 0, 0, "WITHSCORES")
out[#out + 1] = first[2] or ""
return out`;

/**
 * KEYS[1] due set, KEYS[2] the spread's lease; ARGV[1] now, ARGV[2] window ms, ARGV[3] token,
 * ARGV[4] stage-set prefix, ARGV[5…] stages → how many moved, or -1 when another replica
 * holds the lease (it spread them).
 */
export const SPREAD_OVERDUE = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
if not redis.call("SET", KEYS[2], ARGV[3], "NX", "PX", window) then return -1 end
local ids = redis.call("ZRANGEBYSCORE", KEYS[1], "-inf", now)
local waiting = {}
for _, id in ipairs(ids) do
  for s = 5, #ARGV do
    if redis.call("SISMEMBER", ARGV[4] .. ARGV[s], id) == 1 then
      waiting[#waiting + 1] = id
      break
    end
  end
end
local step = window / math.max(1, #waiting)
for k, id in ipairs(waiting) do
  redis.call("ZADD", KEYS[1], math.floor(now + (k - 1) * step), id)
end
return #waiting`;

/** {@link CLAIM_DUE}'s reply: the jobs claimed with their lease tokens, and the next due time. */
export function parseClaimDue(reply: string[]): { claimed: DueClaim[]; next: number | undefined } {
  const claimed: DueClaim[] = [];
  for (let i = 0; i + 1 < reply.length; i += 2) {
    claimed.push({ jobId: reply[i] as string, token: reply[i + 1] as string });
  }
  const last = reply.at(-1);
  return { claimed, next: last === undefined || last === "" ? undefined : Number(last) };
}

/**
 * KEYS[1] a process's heartbeat key; ARGV[1] its lifetime (ms) → Redis's clock (TIME:
 * seconds, microseconds), read after the write. The key says the process is alive.
 */
export const BEAT = `
redis.call("SET", KEYS[1], "1", "PX", ARGV[1])
return redis.call("TIME")`;

/**
 * KEYS[1] due set; ARGV[1] now, ARGV[2] look-ahead ms, ARGV[3] lease key prefix, ARGV[4] this
 * replica's token prefix, ARGV[5] this boot, ARGV[6] heartbeat key prefix → { freed, left }:
 * this replica's leases whose boot no longer beats are freed and their jobs made due.
 */
export const RECLAIM_OWN_LEASES = `
local now = tonumber(ARGV[1])
local mine = ARGV[4]
local freed = 0
local left = 0
local ids = redis.call("ZRANGEBYSCORE", KEYS[1], "-inf", now + tonumber(ARGV[2]))
for _, id in ipairs(ids) do
  local lease = ARGV[3] .. id
  local token = redis.call("GET", lease)
  if token and string.sub(token, 1, #mine) == mine then
    local boot = string.match(string.sub(token, #mine + 1), "^([^/]+)/")
    if boot and boot ~= ARGV[5] then
      if redis.call("EXISTS", ARGV[6] .. boot) == 1 then
        left = left + 1
      else
        redis.call("DEL", lease)
        redis.call("ZADD", KEYS[1], now, id)
        freed = freed + 1
      end
    end
  end
end
return { freed, left }`;
