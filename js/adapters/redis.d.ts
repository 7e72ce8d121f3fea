import type { StashAdapter } from 'ctxpack';

/** Options of {@link redisStash}. */
export interface RedisStashOptions {
  /**
   * Put before every key: records are `<prefix>history_image_<md5>` (the
   * image, `{"data", "mime_type"}`) and
   * `<prefix>ctxpack_meta_{<prefix>history_image_<md5>}` (the bookkeeping,
   * naming its image key in a hash tag, so on a Redis Cluster both keys
   * share one slot). One prefix per tenant or user keeps their stashes
   * apart; a prefix holding a hash tag (`{tenant}:`) keeps a tenant in one
   * slot. A prefix with braces that would put a record's two keys in
   * different slots throws a `TypeError`. Default `''`.
   */
  prefix?: string;
  /** Expiry of an image written without its meta, in seconds; default 7200. */
  ttlSeconds?: number;
}

/**
 * A stash in Redis for `Stash.open({backend: redisStash(client, {prefix}),
 * ttlSeconds})`, over the app's own connected client: node-redis (`redis`
 * 5 or 6; `createClient` or `createCluster`) or `ioredis` (`Redis` or
 * `Cluster`). Redis expires each record itself and its `maxmemory` policy
 * evicts (`volatile-lru` fits: every record has an expiry), so a call looks
 * up only the records it names. `getMany` and `putMany` take one round trip
 * per node: one MULTI on a single Redis; on a cluster one pipeline per node,
 * with a MULTI per slot for writes, so no command spans slots.
 */
export function redisStash(client: unknown, options?: RedisStashOptions): StashAdapter;
