// The Redis rows of `npm run bench`: a turn's compaction against Debian's
// redis-server (started here on a free port) through ctxpack/redis, with an
// empty store and with 20,000 other records in it (other conversations and
// tenants), against the same turn through a StashAdapter as a new user
// writes one over Redis (`keys()` by SCAN, so each call lists the store).
// What to read is each adapter's ratio, full ÷ empty: ctxpack/redis looks
// up only the records a call names.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, startRedis } from '../tests/js/support/redis.mjs';
import { SIZES } from './sizes.mjs';

// 30 screenshots and 20,000 other records (BENCH_SMOKE: a few).
const { shots: SHOTS, others: OTHERS } = SIZES.redis;

/** A StashAdapter over Redis as a new user writes one: JSON values, keys() by SCAN. */
function naiveAdapter(client, prefix) {
  return {
    async get(key) { const v = await client.get(prefix + key); return v ? JSON.parse(v) : undefined; },
    async put(key, value) { await client.set(prefix + key, JSON.stringify(value)); },
    async delete(key) { await client.del(prefix + key); },
    async keys() {
      const out = [];
      for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) for (const k of [].concat(keys)) out.push(k.slice(prefix.length));
      return out;
    },
  };
}

/** Median ms of `runs` calls of `fn(i)` after one warm-up. */
async function median(runs, fn) {
  const ts = [];
  for (let i = 0; i <= runs; i++) {
    const t0 = performance.now();
    await fn(i);
    if (i > 0) ts.push(performance.now() - t0);
  }
  return ts.sort((a, b) => a - b)[Math.floor(ts.length / 2)];
}

/** The rows: prints them and returns the figures. */
export async function benchRedis(ctx, { redisStash, makeImage, runs }) {
  const { createClient } = await import('redis');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ctxpack-bench-redis-'));
  const port = await freePort();
  const server = await startRedis(port, dir);
  const client = await createClient({ url: `redis://127.0.0.1:${port}` }).connect();
  try {
    // A chat the app keeps: 30 screenshots, one new a turn.
    const shots = [];
    for (let i = 0; i < SHOTS + runs + 1; i++) shots.push((await makeImage('png', 320, 200, 500 + i)).toString('base64'));
    const turn = (i) => {
      const messages = [];
      for (const b64 of shots.slice(0, SHOTS + i)) messages.push({ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${b64}` } }, { type: 'text', text: 'and this?' }] }, { role: 'assistant', content: 'noted' });
      messages.push({ role: 'user', content: 'compare the first and the last' });
      return messages;
    };
    const measure = async (adapter) => {
      const stash = await ctx.Stash.open({ backend: adapter, ttlSeconds: 7200 });
      await ctx.compactContext(turn(0), { stash, slack: false });
      return median(runs, (i) => ctx.compactContext(turn(i + 1), { stash, slack: false }));
    };
    const result = {};
    // A warm-up run, so the first row does not pay for the engine's first compilations.
    await measure(redisStash(client, { prefix: 'bench-warm:' }));
    result.empty = { redis: await measure(redisStash(client, { prefix: 'bench-a:' })), naive: await measure(naiveAdapter(client, 'bench-b:')) };
    // 20,000 other records: other tenants' history images and bookkeeping.
    const filler = 'x'.repeat(1024);
    for (let i = 0; i < OTHERS; i += 1000) {
      const m = client.multi();
      for (let k = i; k < Math.min(i + 1000, OTHERS); k++) {
        m.set(`other-tenant-${k % 50}:history_image_${String(k).padStart(32, '0')}`, filler);
      }
      await m.exec();
    }
    result.full = { redis: await measure(redisStash(client, { prefix: 'bench-c:' })), naive: await measure(naiveAdapter(client, 'bench-d:')) };
    // The same turn against a memory stash in this process: Redis ÷ memory.
    result.memory = await measure('memory');
    console.log(`\nRedis (Node, node-redis): a turn of a 30-screenshot chat sent again with one new image; median of ${runs}`);
    console.log('  adapter                          empty store   20,000 other records   full ÷ empty');
    for (const [label, key] of [['ctxpack/redis', 'redis'], ['keys() by SCAN (a new user\'s)', 'naive']]) {
      console.log(`  ${label.padEnd(32)} ${result.empty[key].toFixed(1).padStart(8)} ms   ${result.full[key].toFixed(1).padStart(12)} ms   ${(result.full[key] / result.empty[key]).toFixed(2).padStart(10)}`);
    }
    console.log(`  memory stash (one process)       ${result.memory.toFixed(1).padStart(8)} ms   ctxpack/redis with 20,000 others ÷ memory: ${(result.full.redis / result.memory).toFixed(2)}`);
    return result;
  } finally {
    await client.close();
    server.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}
