// The Redis rows of `npm run bench`: a turn's compaction against Debian's
// redis-server (started here on a free port) through ctxpack/redis, with an
// empty store and with 20,000 other records in it (other conversations and
// tenants), against the same turn through a StashAdapter as a new user
// writes one over Redis (`keys()` by SCAN, so each call lists the store).
// What to read is each adapter's ratio, full ÷ empty: ctxpack/redis looks
// up only the records a call names. Then the same turn on a 3-node Redis
// Cluster (node-redis createCluster), empty and with 20,000 other keys,
// against one Redis; and the round trips each call takes, counted on the
// client's sockets, on one Redis and on the cluster.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, startRedis } from '../tests/js/support/redis.mjs';
import { connectCluster, startCluster } from '../tests/js/support/redis_cluster.mjs';
import { countRoundTrips } from '../tests/js/support/round_trips.mjs';
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

/** `count` other tenants' history images (1 KB each) through `client` (single or cluster). */
async function fill(client, count) {
  const filler = 'x'.repeat(1024);
  for (let i = 0; i < count; i += 1000) {
    await Promise.all(Array.from({ length: 1000 }, (_, k) => client.set(`other-tenant-${(i + k) % 50}:history_image_${String(i + k).padStart(32, '0')}`, filler)));
  }
}

/**
 * Round trips of each call on `ports`, with 12 small images (no write
 * waits for the socket's buffer, so each count is the wire's): the first
 * send, the re-sent turn with one new image, the same turn again, its
 * expansion, and the adapter's getMany and putMany of 12 records.
 */
export async function roundTrips(ctx, redisStash, client, ports, makeImage) {
  const shots = [];
  for (let i = 0; i < 13; i++) shots.push((await makeImage('png', 8, 8, 900 + i)).toString('base64'));
  const chat = (n) => [
    ...shots.slice(0, n).flatMap((b64) => [{ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${b64}` } }, { type: 'text', text: 'and this?' }] }, { role: 'assistant', content: 'noted' }]),
    { role: 'user', content: 'compare the first and the last' },
  ];
  const prefix = `bench-trips-${ports.length}:`;
  const adapter = redisStash(client, { prefix });
  const stash = await ctx.Stash.open({ backend: adapter, ttlSeconds: 7200 });
  const ids = shots.map((b) => createHash('md5').update(b).digest('hex'));
  // The client's connections, opened before counting.
  await adapter.getMany(ids.map((id) => `${id}.meta`));
  const trips = countRoundTrips(ports);
  const out = {};
  const count = async (name, fn) => {
    trips.reset();
    const value = await fn();
    const counts = Object.values(trips.counts());
    if (trips.flowControlled()) throw new Error(`${name}: a write waited for the socket's buffer; the count would mean nothing`);
    out[name] = { total: counts.reduce((a, b) => a + b, 0), nodes: counts.length, perNode: Math.max(0, ...counts) };
    return value;
  };
  try {
    await count('first', () => ctx.compactContext(chat(12), { stash, slack: false }));
    await count('resentNew', () => ctx.compactContext(chat(13), { stash, slack: false }));
    const again = await count('resent', () => ctx.compactContext(chat(13), { stash, slack: false }));
    await count('expand', () => ctx.expandContext(again.messages, { stash }));
    await count('getMany', () => adapter.getMany([...ids.slice(0, 12), ...ids.slice(0, 12).map((id) => `${id}.meta`)]));
    const entries = ids.slice(0, 12).flatMap((id, i) => [[id, { data: shots[i], mime: 'image/png' }], [`${id}.meta`, { id, size: 1, createdAt: 1, expiresAt: Date.now() + 7200e3 }]]);
    await count('putMany', () => adapter.putMany(entries));
  } finally {
    trips.stop();
  }
  return out;
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
    const clusterRuns = 3 * runs;
    for (let i = 0; i < SHOTS + Math.max(runs, clusterRuns) + 1; i++) shots.push((await makeImage('png', 320, 200, 500 + i)).toString('base64'));
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
    /** Median ms of each adapter's turns, taken in turn (each under the same load of the machine). */
    const inTurn = async (adapters, n) => {
      const stashes = await Promise.all(adapters.map((backend) => ctx.Stash.open({ backend, ttlSeconds: 7200 })));
      for (const stash of stashes) await ctx.compactContext(turn(0), { stash, slack: false });
      const times = stashes.map(() => []);
      for (let i = 1; i <= n; i++) {
        for (const [k, stash] of stashes.entries()) {
          const t0 = performance.now();
          await ctx.compactContext(turn(i), { stash, slack: false });
          times[k].push(performance.now() - t0);
        }
      }
      return times.map((ts) => ts.sort((a, b) => a - b)[Math.floor(ts.length / 2)]);
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
    result.trips = { single: await roundTrips(ctx, redisStash, client, [port], makeImage) };
    // The same turn on a 3-node cluster with none and with 20,000 other keys
    // (two clusters), and on the one Redis (20,000 others), taken in turn.
    const clusters = [await startCluster(), await startCluster()];
    const [bare, filled] = await Promise.all(clusters.map((c) => connectCluster('node-redis', c.ports)));
    try {
      await fill(filled.client, OTHERS);
      for (const c of [bare, filled]) await measure(redisStash(c.client, { prefix: 'bench-warm:' }));
      const [single, empty, full] = await inTurn([redisStash(client, { prefix: 'bench-g:' }), redisStash(bare.client, { prefix: 'bench-h:' }), redisStash(filled.client, { prefix: 'bench-i:' })], clusterRuns);
      result.cluster = { single, empty, full, runs: clusterRuns };
      result.trips.cluster = await roundTrips(ctx, redisStash, bare.client, clusters[0].ports, makeImage);
    } finally {
      for (const c of [bare, filled]) await c.close();
      for (const c of clusters) await c.stop();
    }
    console.log(`\nRedis (Node, node-redis): a turn of a 30-screenshot chat sent again with one new image; median of ${runs}`);
    console.log('  adapter                          empty store   20,000 other records   full ÷ empty');
    for (const [label, key] of [['ctxpack/redis', 'redis'], ['keys() by SCAN (a new user\'s)', 'naive']]) {
      console.log(`  ${label.padEnd(32)} ${result.empty[key].toFixed(1).padStart(8)} ms   ${result.full[key].toFixed(1).padStart(12)} ms   ${(result.full[key] / result.empty[key]).toFixed(2).padStart(10)}`);
    }
    console.log(`  memory stash (one process)       ${result.memory.toFixed(1).padStart(8)} ms   ctxpack/redis with 20,000 others ÷ memory: ${(result.full.redis / result.memory).toFixed(2)}`);
    const onCluster = result.cluster;
    console.log(`\nThe same turn, each row's calls taken in turn; median of ${onCluster.runs}`);
    console.log(`  ctxpack/redis, one Redis with 20,000 others   ${onCluster.single.toFixed(1).padStart(8)} ms`);
    console.log(`  ctxpack/redis, 3-node cluster, empty          ${onCluster.empty.toFixed(1).padStart(8)} ms`);
    console.log(`  ctxpack/redis, 3-node cluster, 20,000 others  ${onCluster.full.toFixed(1).padStart(8)} ms   full ÷ empty ${(onCluster.full / onCluster.empty).toFixed(2)}; cluster ÷ one Redis ${(onCluster.full / onCluster.single).toFixed(2)}`);
    console.log('\nRound trips per call (a 12-image chat of small images; counted on the client\'s sockets): total, and the most on one node');
    console.log('  call                                   one Redis   3-node cluster');
    const label = { first: 'first send (12 new images)', resentNew: 're-sent turn, one new image', resent: 're-sent turn, nothing new', expand: 'expandContext (13 placeholders)', getMany: 'getMany (12 images, 12 metas)', putMany: 'putMany (12 records)' };
    for (const [k, name] of Object.entries(label)) {
      const one = result.trips.single[k];
      const many = result.trips.cluster[k];
      console.log(`  ${name.padEnd(38)} ${String(one.total).padStart(9)}   ${String(many.total).padStart(5)} (${many.perNode} on one node of ${many.nodes})`);
    }
    return result;
  } finally {
    await client.close();
    server.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}
