'use strict';
// What `ctxpack proxy` and `ctxpack mcp` share: their flags, read the same
// way, and the stash both open — the file stash (by default a folder in the
// user's cache directory) or Redis, a cluster included — so that the images
// one stashes the other answers.
const os = require('node:os');
const path = require('node:path');

/** The user's cache directory for ctxpack's stash: XDG on Linux, the platform's own elsewhere. */
function defaultStashDir() {
  const home = os.homedir();
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Caches', 'ctxpack', 'stash');
  if (process.platform === 'win32') return path.join(process.env.LOCALAPPDATA || path.join(home, 'AppData', 'Local'), 'ctxpack', 'stash');
  return path.join(process.env.XDG_CACHE_HOME || path.join(home, '.cache'), 'ctxpack', 'stash');
}

class ServeUsageError extends Error {}

/**
 * `argv` read by `spec`: flag → `{key, arg?: 'int'|'text'}`. Returns the
 * options by key; `--help` gives `{help: true}`.
 */
function parseFlags(argv, spec) {
  const opts = {};
  for (let i = 0; i < argv.length; i++) {
    let a = argv[i];
    let inline;
    if (a.startsWith('--') && a.includes('=')) [a, inline] = [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)];
    if (a === '-h' || a === '--help') return { help: true };
    const s = spec[a];
    if (!s) throw new ServeUsageError(a.startsWith('-') ? `unknown option ${a}` : `unexpected argument ${JSON.stringify(a)}`);
    if (!s.arg) {
      if (inline !== undefined) throw new ServeUsageError(`${a} takes no value`);
      opts[s.key] = true;
      continue;
    }
    let v = inline;
    if (v === undefined) {
      if (i + 1 >= argv.length) throw new ServeUsageError(`${a} needs a value`);
      v = argv[++i];
    }
    if (s.arg === 'int') {
      if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v))) throw new ServeUsageError(`${a} needs a whole number ≥ 0`);
      v = Number(v);
    }
    opts[s.key] = v;
  }
  if (opts.stashDir !== undefined && opts.redis !== undefined) throw new ServeUsageError('give --stash-dir or --redis, not both');
  return opts;
}

/** The stash flags both commands take. */
const STASH_FLAGS = {
  '--stash-dir': { key: 'stashDir', arg: 'text', help: `DIR    the file stash (default: ${defaultStashDir()})` },
  '--redis': { key: 'redis', arg: 'text', help: "URL        the Redis stash instead (redis://…; several URLs, comma-separated: a cluster's nodes)" },
  '--redis-prefix': { key: 'redisPrefix', arg: 'text', help: 'P   put before every Redis key (default: none)' },
  '--ttl-seconds': { key: 'ttlSeconds', arg: 'int', help: 'N    stash records expire N s after their last use (default: 7200)' },
};

/** The help lines of `spec`'s flags. */
function flagHelp(spec) {
  return Object.entries(spec).map(([flag, s]) => `  ${flag} ${s.help}`).join('\n');
}

/**
 * The stash `opts` name, opened with `ctxpack`: `{stash, close}`. Redis
 * comes through the `redis` package (node-redis), which the app installs.
 */
async function openServeStash(ctxpack, opts) {
  if (opts.redis !== undefined) {
    let redis;
    try {
      redis = require('redis');
    } catch {
      throw new ServeUsageError('--redis needs the `redis` package: npm install redis');
    }
    const { redisStash } = require('../dist/adapters/redis.cjs');
    const urls = opts.redis.split(',').map((u) => u.trim()).filter(Boolean);
    // A Redis that goes away fails commands at once (no offline queue): the proxy's requests then go on with their images inline.
    const client = urls.length > 1
      ? redis.createCluster({ rootNodes: urls.map((url) => ({ url })), defaults: { disableOfflineQueue: true } })
      : redis.createClient({ url: urls[0], disableOfflineQueue: true });
    client.on('error', (e) => process.stderr.write(`ctxpack: redis: ${e.message}\n`));
    await client.connect();
    const stash = await ctxpack.Stash.open({ backend: redisStash(client, { prefix: opts.redisPrefix ?? '' }), ttlSeconds: opts.ttlSeconds });
    return { stash, where: `redis ${urls.map((u) => new URL(u).host).join(',')}`, close: async () => { stash.close(); await client.quit(); } };
  }
  const { fileStash } = require('../dist/node/file-stash.js');
  const dir = path.resolve(opts.stashDir ?? defaultStashDir());
  const stash = await ctxpack.Stash.open({ backend: fileStash(dir), ttlSeconds: opts.ttlSeconds });
  return { stash, where: dir, close: async () => stash.close() };
}

/**
 * A serving command's flags read from `argv` by `spec`: `{opts}`, or
 * `{exit}` once `--help` printed `usage` (0) or a usage error printed it
 * after the error (1).
 */
function commandFlags(argv, spec, usage) {
  let opts;
  try {
    opts = parseFlags(argv, spec);
  } catch (e) {
    if (!(e instanceof ServeUsageError)) throw e;
    process.stderr.write(`ctxpack: ${e.message}\n${usage}`);
    return { exit: 1 };
  }
  if (opts.help) {
    process.stdout.write(usage);
    return { exit: 0 };
  }
  return { opts };
}

module.exports = { STASH_FLAGS, ServeUsageError, commandFlags, defaultStashDir, flagHelp, openServeStash, parseFlags };
