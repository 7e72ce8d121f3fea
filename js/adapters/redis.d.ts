import type { StashAdapter } from 'ctxpack';

/** Options of {@link redisStash}. */
export interface RedisStashOptions {
  /**
   * Put before every key: records are `<prefix>history_image_<md5>` (the
   * image, `{"data", "mime_type"}`) and `<prefix>ctxpack_meta_<md5>` (the
   * bookkeeping). One prefix per tenant or user keeps their stashes apart.
   * Default `''`.
   */
  prefix?: string;
  /** Expiry of an image written without its meta, in seconds; default 7200. */
  ttlSeconds?: number;
}

/**
 * A stash in Redis for `Stash.open({backend: redisStash(client, {prefix}),
 * ttlSeconds})`, over the app's own connected client: node-redis (`redis`
 * 5 or 6) or `ioredis`. Redis expires each record itself and its
 * `maxmemory` policy evicts (`volatile-lru` fits: every record has an
 * expiry), so a call looks up only the records it names, in one MULTI.
 */
export function redisStash(client: unknown, options?: RedisStashOptions): StashAdapter;
