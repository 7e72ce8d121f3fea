'use strict';
// ctxpack/redis: one stash for every server instance, in Redis, in the
// records a server that already keeps history images there writes:
//
//   <prefix>history_image_<md5>   {"data": <base64>, "mime_type": <type>}, expiring with the record
//   <prefix>ctxpack_meta_<md5>    ctxpack's bookkeeping (size, times, the part shape to restore)
//
// It takes the app's own connected client — node-redis (`redis` 5 or 6) or
// `ioredis` — and is a StashAdapter with `expires: true`: Redis expires each
// record itself (both keys expire at the meta's `expiresAt`, renewed when
// the meta is written again) and its `maxmemory` policy evicts, so a call
// looks up only the records it names, in one MULTI, and never scans the
// store. Ids are md5s: anything else never becomes a key.

const MD5 = /^[0-9a-f]{32}$/;
const META_SUFFIX = '.meta';

/** Runs commands on `client` in one MULTI; the replies, in order. */
function commands(client) {
  if (typeof client?.call === 'function' && typeof client?.multi === 'function') {
    // ioredis: multi([[cmd, ...args]]).exec() gives [[error, reply], …].
    return async (list) => {
      const replies = await client.multi(list.map(([name, ...args]) => [name.toLowerCase(), ...args.map(String)])).exec();
      if (!replies) throw new Error('the Redis transaction was aborted');
      return replies.map(([error, reply]) => {
        if (error) throw error;
        return reply;
      });
    };
  }
  if (typeof client?.sendCommand === 'function' && typeof client?.multi === 'function') {
    // node-redis: multi().addCommand([...]).exec() gives the replies.
    return async (list) => {
      const multi = client.multi();
      for (const args of list) multi.addCommand(args.map(String));
      return multi.exec();
    };
  }
  throw new TypeError('redisStash needs a connected node-redis (`redis`) or `ioredis` client');
}

/** The record id an adapter key names (`<md5>` or `<md5>.meta`), or null for any other key. */
function idOf(key) {
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
  const run = commands(client);
  const imageKey = (id) => `${prefix}history_image_${id}`;
  const metaKey = (id) => `${prefix}ctxpack_meta_${id}`;

  /**
   * The metas of `ids`, in order: ctxpack's own, or — for an image a
   * server wrote without them — made from the image (its type from the
   * value, its expiry from the key's TTL). One MULTI, and one more only for
   * such images.
   */
  async function metas(ids) {
    if (!ids.length) return [];
    // Each meta, and whether its image is there (PTTL is -2 for no key).
    const replies = await run(ids.flatMap((id) => [['GET', metaKey(id)], ['PTTL', imageKey(id)]]));
    const ttls = ids.map((_, i) => Number(replies[2 * i + 1]));
    // A meta whose image Redis evicted is no record: it is written again.
    const out = ids.map((_, i) => (ttls[i] === -2 ? null : parse(replies[2 * i])));
    const bare = ids.filter((_, i) => !out[i] && ttls[i] !== -2);
    if (bare.length) {
      const images = await run(bare.map((id) => ['GET', imageKey(id)]));
      const now = Date.now();
      bare.forEach((id, k) => {
        const value = parse(images[k]);
        if (!value || typeof value.data !== 'string') return;
        const ttl = ttls[ids.indexOf(id)];
        out[ids.indexOf(id)] = {
          id,
          size: decodedSize(value.data),
          storedBytes: value.data.length,
          mime: typeof value.mime_type === 'string' ? value.mime_type : 'application/octet-stream',
          createdAt: now,
          expiresAt: ttl > 0 ? now + ttl : now + ttlSeconds * 1000,
          lastUsedAt: now,
        };
      });
    }
    return out;
  }

  /** The image record `id`, with its meta's part shape and times. */
  async function image(id) {
    const [text, metaText] = await run([['GET', imageKey(id)], ['GET', metaKey(id)]]);
    const value = parse(text);
    if (!value || typeof value.data !== 'string') return undefined;
    const meta = parse(metaText) ?? {};
    const record = { id, mime: value.mime_type, data: value.data, size: meta.size ?? decodedSize(value.data), createdAt: meta.createdAt ?? Date.now() };
    if (typeof meta.part === 'string') record.part = meta.part;
    return record;
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
        list.push(['SET', metaKey(id), JSON.stringify(value), ...until]);
        // The image lives as long as its meta: renewing one renews both.
        if (at) list.push(['PEXPIREAT', imageKey(id), at]);
      } else {
        if (typeof value?.data !== 'string') throw new Error('a record image needs its base64 data as a string');
        list.push(['SET', imageKey(id), JSON.stringify({ data: value.data, mime_type: value.mime }), ...until]);
      }
    }
    return list;
  }

  return {
    expires: true,
    async get(key) {
      const id = idOf(key);
      if (!id) return undefined;
      if (key.endsWith(META_SUFFIX)) return (await metas([id]))[0] ?? undefined;
      return image(id);
    },
    async getMany(keys) {
      const ids = keys.map(idOf);
      const metaIds = ids.filter((id, i) => id && keys[i].endsWith(META_SUFFIX));
      const found = await metas(metaIds);
      const byId = new Map(metaIds.map((id, i) => [id, found[i]]));
      const out = [];
      for (let i = 0; i < keys.length; i++) {
        if (!ids[i]) out.push(undefined);
        else if (keys[i].endsWith(META_SUFFIX)) out.push(byId.get(ids[i]) ?? undefined);
        else out.push(await image(ids[i]));
      }
      return out;
    },
    async put(key, value) {
      await run(writes([[key, value]]));
    },
    async putMany(entries) {
      if (entries.length) await run(writes(entries));
    },
    async delete(key) {
      const id = idOf(key);
      if (id) await run([['DEL', metaKey(id), imageKey(id)]]);
    },
    /** Every record under the prefix (for `Stash.list` and `clear`; a call never asks). */
    async keys() {
      const ids = new Set();
      for (const pattern of [`${prefix}history_image_*`, `${prefix}ctxpack_meta_*`]) {
        let cursor = '0';
        do {
          const [next, found] = (await run([['SCAN', cursor, 'MATCH', pattern.replace(/[*?[\]\\]/g, (c, i) => (i === pattern.length - 1 ? c : `\\${c}`)), 'COUNT', 1000]]))[0];
          cursor = String(next);
          for (const k of found) {
            const id = String(k).slice(String(k).lastIndexOf('_') + 1);
            if (MD5.test(id)) ids.add(id);
          }
        } while (cursor !== '0');
      }
      return [...ids].flatMap((id) => [id, `${id}${META_SUFFIX}`]);
    },
  };
}

module.exports = { redisStash };
