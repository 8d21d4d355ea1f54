import { createClient } from "@keyv/redis";

/**
 * `key = value` for every key of the Redis at `url` that matches `match` (a SCAN pattern),
 * whatever its type: what a look at the Redis would show. Sets, lists and sorted sets are
 * joined with commas, hashes shown as JSON.
 */
export async function redisEntries(url: string, match: string): Promise<string[]> {
  const client = createClient({ url });
  await client.connect();
  try {
    const keys: string[] = [];
    for await (const batch of client.scanIterator({ MATCH: match, COUNT: 1000 })) {
      keys.push(...batch);
    }
    const shown = async (key: string): Promise<string> => {
      const type = await client.type(key);
      if (type === "string") return (await client.get(key)) ?? "";
      if (type === "set") return (await client.sMembers(key)).sort().join(",");
      if (type === "list") return (await client.lRange(key, 0, -1)).join(",");
      if (type === "zset") return (await client.zRange(key, 0, -1)).join(",");
      if (type === "hash") return JSON.stringify(await client.hGetAll(key));
      return `(${type})`;
    };
    const entries: string[] = [];
    for (const key of keys.sort()) entries.push(`${key} = ${await shown(key)}`);
    return entries;
  } finally {
    client.destroy();
  }
}

/** Deletes every key of the Redis at `url` that matches `match`. */
export async function deleteRedisKeys(url: string, match: string): Promise<void> {
  const client = createClient({ url });
  await client.connect();
  try {
    for await (const batch of client.scanIterator({ MATCH: match, COUNT: 1000 })) {
      if (batch.length > 0) await client.del(batch);
    }
  } finally {
    client.destroy();
  }
}
