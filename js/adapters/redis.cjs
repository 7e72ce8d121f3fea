'use strict';
// ctxpack/redis: one stash for every server instance, in Redis, in the
// records a server that already keeps history images there writes:
//
//   <prefix>history_image_<md5>                          {"data": <base64>, "mime_type": <type>}, expiring with the record
//   <prefix>ctxpack_meta_{<prefix>history_image_<md5>}   ctxpack's bookkeeping (size, times, the part shape to restore)
//
// The bookkeeping names its image key in a hash tag, so on a Redis Cluster
// both keys hash to one slot. It takes the app's own connected client —
// node-redis (`redis` 5 or 6, `createClient` or `createCluster`) or
// `ioredis` (`Redis` or `Cluster`) — and is a StashAdapter with `expires:
// true`: Redis expires each record itself (both keys expire at the meta's
// `expiresAt`, renewed when the meta is written again) and its `maxmemory`
// policy evicts, so a call looks up only the records it names, in one round
// trip per node (redis-batch.cjs), and never scans the store. Ids are md5s:
// anything else never becomes a key.

const { batches, hashTag } = require('./redis-batch.cjs');

const MD5 = /^[0-9a-f]{32}$/;
const META_SUFFIX = '.meta';

/** The record id an adapter key names (`<md5>` or `<md5>.meta`), or null for any other key. */
function idOf(key) {
  if (typeof key !== 'string') return null;
  const id = key.endsWith(META_SUFFIX) ? key.slice(0, -META_SUFFIX.length) : key;
  return MD5.test(id) ? id : null;
}

/** Decoded size of base64 `data`. */
function decodedSize(data) {
  const pad = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - pad);
}

/** JSON `text` parsed, or null. */
function parse(text) {
  if (typeof text !== 'string') return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * A StashAdapter over `client`: `Stash.open({backend: redisStash(client,
 * {prefix: 'dootask_ai:cache:'}), ttlSeconds: 7200})`. `prefix` keeps
 * tenants apart (one per tenant or user); `ttlSeconds` is the expiry of an
 * image written without its meta (ctxpack always writes both).
 */
function redisStash(client, { prefix = '', ttlSeconds = 7200 } = {}) {
  if (typeof prefix !== 'string') throw new TypeError('redisStash: prefix must be a string');
  const { run, scanners } = batches(client);
  const imageKey = (id) => `${prefix}history_image_${id}`;
  // The bookkeeping names its image key in a hash tag: on a cluster both
  // keys hash to one slot, so a record is written in one MULTI.
  const metaKey = (id) => `${prefix}ctxpack_meta_{${imageKey(id)}}`;
  const sample = '0'.repeat(32);
  if (hashTag(metaKey(sample)) !== hashTag(imageKey(sample))) {
    throw new TypeError('redisStash: a prefix with braces must hold one hash tag, such as `{tenant}:`');
  }
  const cmd = (key, ...args) => ({ key, args: [...args.slice(0, 1), key, ...args.slice(1)] });

  /** The meta a record without ctxpack's bookkeeping gets from its image `value` and its key's TTL. */
  function bareMeta(id, value, ttl, now) {
    if (!value || typeof value.data !== 'string') return null;
    return {
      id,
      size: decodedSize(value.data),
      storedBytes: value.data.length,
      mime: typeof value.mime_type === 'string' ? value.mime_type : 'application/octet-stream',
      createdAt: now,
      expiresAt: ttl > 0 ? now + ttl : now + ttlSeconds * 1000,
      lastUsedAt: now,
    };
  }

  /** The image record `id` from its stored `text` and its meta's `metaText`. */
  function record(id, text, metaText) {
    const value = parse(text);
    if (!value || typeof value.data !== 'string') return undefined;
    const meta = parse(metaText) ?? {};
    const out = { id, mime: value.mime_type, data: value.data, size: meta.size ?? decodedSize(value.data), createdAt: meta.createdAt ?? Date.now() };
    if (typeof meta.part === 'string') out.part = meta.part;
    return out;
  }

  /**
   * The metas of `metaIds` and the image records of `imageIds`, in order,
   * in one round trip per node: ctxpack's own metas, or — for an image a
   * server wrote without them — one made from the image (its type from the
   * value, its expiry from the key's TTL), which costs one more round trip
   * only for such images.
   */
  async function lookup(metaIds, imageIds) {
    if (!metaIds.length && !imageIds.length) return [[], []];
    // Each meta, and whether its image is there (PTTL is -2 for no key);
    // each image with its meta.
    const list = [
      ...metaIds.flatMap((id) => [cmd(metaKey(id), 'GET'), cmd(imageKey(id), 'PTTL')]),
      ...imageIds.flatMap((id) => [cmd(imageKey(id), 'GET'), cmd(metaKey(id), 'GET')]),
    ];
    const got = await run(list);
    const ttls = metaIds.map((_, i) => Number(got[2 * i + 1]));
    // A meta whose image Redis evicted is no record: it is written again.
    const metas = metaIds.map((_, i) => (ttls[i] === -2 ? null : parse(got[2 * i])));
    const at = 2 * metaIds.length;
    const images = imageIds.map((id, i) => record(id, got[at + 2 * i], got[at + 2 * i + 1]));
    const bare = metaIds.map((id, i) => i).filter((i) => !metas[i] && ttls[i] !== -2);
    if (bare.length) {
      const values = await run(bare.map((i) => cmd(imageKey(metaIds[i]), 'GET')));
      const now = Date.now();
      bare.forEach((i, k) => { metas[i] = bareMeta(metaIds[i], parse(values[k]), ttls[i], now); });
    }
    return [metas, images];
  }

  /** The commands that write `entries` ([adapter key, value]). */
  function writes(entries) {
    const expiry = new Map();
    for (const [key, value] of entries) {
      if (key.endsWith(META_SUFFIX) && idOf(key) && Number.isFinite(value?.expiresAt)) expiry.set(idOf(key), Math.max(1, Math.round(value.expiresAt)));
    }
    const list = [];
    for (const [key, value] of entries) {
      const id = idOf(key);
      if (!id) throw new Error(`not a record key: ${String(key).slice(0, 80)}`);
      const at = expiry.get(id);
      const until = at ? ['PXAT', at] : ['EX', ttlSeconds];
      if (key.endsWith(META_SUFFIX)) {
        list.push(cmd(metaKey(id), 'SET', JSON.stringify(value), ...until));
        // The image lives as long as its meta: renewing one renews both.
        if (at) list.push(cmd(imageKey(id), 'PEXPIREAT', at));
      } else {
        if (typeof value?.data !== 'string') throw new Error('a record image needs its base64 data as a string');
        list.push(cmd(imageKey(id), 'SET', JSON.stringify({ data: value.data, mime_type: value.mime }), ...until));
      }
    }
    return list;
  }

  /** Many metas and images in one round trip per node. */
  async function getMany(keys) {
    const ids = keys.map(idOf);
    const isMeta = keys.map((k) => typeof k === 'string' && k.endsWith(META_SUFFIX));
    const metaIds = ids.filter((id, i) => id && isMeta[i]);
    const imageIds = ids.filter((id, i) => id && !isMeta[i]);
    const [metas, images] = await lookup(metaIds, imageIds);
    let m = 0;
    let g = 0;
    return ids.map((id, i) => (!id ? undefined : isMeta[i] ? metas[m++] ?? undefined : images[g++]));
  }

  return {
    expires: true,
    async get(key) {
      return (await getMany([key]))[0];
    },
    getMany,
    async put(key, value) {
      await run(writes([[key, value]]), { atomic: true });
    },
    /** Many keys in one round trip per node; a record's image and meta in one MULTI. */
    async putMany(entries) {
      if (entries.length) await run(writes(entries), { atomic: true });
    },
    async delete(key) {
      const id = idOf(key);
      if (id) await run([{ key: imageKey(id), args: ['DEL', metaKey(id), imageKey(id)] }], { atomic: true });
    },
    /** Every record under the prefix, on every node (for `Stash.list` and `clear`; a call never asks). */
    async keys() {
      const ids = new Set();
      const escaped = prefix.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
      for (const send of await scanners()) {
        for (const pattern of [`${escaped}history_image_*`, `${escaped}ctxpack_meta_*`]) {
          let cursor = '0';
          do {
            const [next, found] = await send(['SCAN', cursor, 'MATCH', pattern, 'COUNT', 1000]);
            cursor = String(next);
            for (const k of found) {
              const id = /([0-9a-f]{32})\}?$/.exec(String(k))?.[1];
              if (id) ids.add(id);
            }
          } while (cursor !== '0');
        }
      }
      return [...ids].flatMap((id) => [id, `${id}${META_SUFFIX}`]);
    },
  };
}

module.exports = { redisStash };
