// ctxpack/redis on a Redis Cluster: three of Debian's redis-server nodes,
// started here on free ports with append-only persistence
// (support/redis_cluster.mjs), through both cluster clients an app brings:
// node-redis `createCluster` and ioredis `Cluster`. Each node is also asked
// directly, as an operator's redis-cli would: which slot a key hashes to,
// which node serves it, what it holds, what it was asked.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import Redis from 'ioredis';
import { Stash, compactContext, expandContext, getHistoryImage } from 'ctxpack';
import { redisStash } from 'ctxpack/redis';
import { makeImage } from '../fixtures/make.mjs';
import { connectCluster, startCluster } from './support/redis_cluster.mjs';
import { countRoundTrips } from './support/round_trips.mjs';

const md5 = (s) => createHash('md5').update(s).digest('hex');
const KINDS = ['node-redis', 'ioredis'];
const cluster = await startCluster();
const tmp = mkdtempSync(path.join(os.tmpdir(), 'ctxpack-cluster-test-'));
const admins = cluster.ports.map((port) => new Redis({ port, host: '127.0.0.1' }));
for (const a of admins) a.on('error', () => {});
test.after(async () => {
  for (const a of admins) a.disconnect();
  await cluster.stop();
  rmSync(tmp, { recursive: true, force: true });
});

/** The slot Redis hashes `key` to. */
const slotOf = async (key) => Number(await admins[0].call('CLUSTER', 'KEYSLOT', key));
/** The port of the node serving `key`. */
async function portOf(key) {
  const slot = await slotOf(key);
  const ranges = await admins[0].call('CLUSTER', 'SLOTS');
  return Number(ranges.find(([from, to]) => slot >= from && slot <= to)[2][1]);
}
/** The node serving `key`, asked directly. */
const nodeOf = async (key) => admins[cluster.ports.indexOf(await portOf(key))];
/** How often every node ran `name`. */
async function calls(name) {
  let n = 0;
  for (const a of admins) n += Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(await a.info('commandstats'))?.[1] ?? 0);
  return n;
}
/** {port: n} for each node serving one of `keys`. */
const onEachNode = async (keys, n) => Object.fromEntries([...new Set(await Promise.all(keys.map(portOf)))].sort((a, b) => a - b).map((p) => [p, n]));

const png = async (seed) => (await makeImage('png', 8, 8, seed)).toString('base64');
const chat = (images) => [
  ...images.flatMap((b, i) => [{ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${b}` } }, { type: 'text', text: `screenshot ${i}` }] }, { role: 'assistant', content: 'noted' }]),
  { role: 'user', content: 'compare the first and the last' },
];
const keysOf = (prefix, id) => {
  const image = `${prefix}history_image_${id}`;
  return { image, meta: `${prefix}ctxpack_meta_{${image}}` };
};

// 20,000 other keys on the cluster: other tenants' history images.
{
  const { client, close } = await connectCluster('node-redis', cluster.ports);
  for (let i = 0; i < 20000; i += 2000) {
    await Promise.all(Array.from({ length: 2000 }, (_, k) => client.set(`other-tenant-${(i + k) % 50}:history_image_${String(i + k).padStart(32, '0')}`, 'x')));
  }
  close();
}

for (const [n, kind] of KINDS.entries()) {
  test(`${kind} on a 3-node cluster: compaction writes seed 000's records (each record's two keys in one slot) among 20,000 other keys, one round trip per node and lookup or write, never a scan`, async () => {
    const { client, close } = await connectCluster(kind, cluster.ports);
    const trips = countRoundTrips(cluster.ports);
    try {
      const prefix = `dootask_ai:cache:${kind}:`;
      const images = await Promise.all([1, 2, 3, 4, 5, 6].map((s) => png(20 * n + s)));
      const ids = images.map(md5);
      const imageKeys = ids.map((id) => keysOf(prefix, id).image);
      const everyNode = (k) => onEachNode(imageKeys, k);
      assert.ok(Object.keys(await everyNode(1)).length >= 2, 'the records are spread over nodes');
      let total = 0;
      for (const a of admins) total += await a.dbsize();
      assert.ok(total >= 20000);
      const stash = await Stash.open({ backend: redisStash(client, { prefix }), ttlSeconds: 7200 });
      // The client's connections to the nodes, opened before counting.
      await redisStash(client, { prefix }).getMany(ids.map((id) => `${id}.meta`));
      const scans = [await calls('scan'), await calls('keys')];
      trips.reset();
      const { messages, report } = await compactContext(chat(images), { stash, slack: false });
      assert.equal(trips.flowControlled(), false);
      // One lookup, one write: two round trips on each node holding a record, none elsewhere.
      assert.deepEqual(trips.counts(), await everyNode(2));
      assert.deepEqual([await calls('scan'), await calls('keys')], scans, 'no SCAN, no KEYS');
      assert.equal(report.stashed, 6);
      assert.equal(report.written, 6);
      for (const [i, id] of ids.entries()) {
        const { image, meta } = keysOf(prefix, id);
        const node = await nodeOf(image);
        // The image record is exactly the seed's, expiring with the stash's TTL.
        assert.deepEqual(JSON.parse(await node.get(image)), { data: images[i], mime_type: 'image/png' });
        const ttl = await node.ttl(image);
        assert.ok(ttl > 7100 && ttl <= 7200, `TTL ${ttl}`);
        // The bookkeeping names the image key in its hash tag: same slot, same node.
        assert.equal(await slotOf(meta), await slotOf(image));
        const bookkeeping = JSON.parse(await node.get(meta));
        assert.equal(bookkeeping.id, id);
        assert.ok(!('data' in bookkeeping));
      }
      for (const [i, id] of ids.entries()) {
        assert.equal((await getHistoryImage(stash, `history_${id}`)).at(-1).image_url.url, `data:image/png;base64,${images[i]}`);
      }
      assert.deepEqual((await expandContext(messages, { stash })).messages, chat(images));
      // Sent again: confirmed, nothing written; the core looks the records up
      // twice (what the history references, then what it keeps), each a round
      // trip per node.
      trips.reset();
      const again = await compactContext(chat(images), { stash, slack: false });
      assert.deepEqual([again.report.stashed, again.report.written], [6, 0]);
      assert.deepEqual(trips.counts(), await everyNode(2));
      assert.deepEqual(again.messages, messages);
    } finally {
      trips.stop();
      await close();
    }
  });

  test(`${kind} on a cluster: a record the seed's server wrote, with no bookkeeping, is served and listed with its key's expiry`, async () => {
    const { client, close } = await connectCluster(kind, cluster.ports);
    try {
      const prefix = `seed-${kind}:`;
      const data = await png(40 + n);
      const id = md5(data);
      await (await nodeOf(keysOf(prefix, id).image)).set(keysOf(prefix, id).image, JSON.stringify({ data, mime_type: 'image/png' }), 'EX', 7200);
      const stash = await Stash.open({ backend: redisStash(client, { prefix }), ttlSeconds: 7200 });
      assert.equal((await getHistoryImage(stash, `history_${id}`)).at(-1).image_url.url, `data:image/png;base64,${data}`);
      const restored = await expandContext([{ role: 'user', content: `[Picture:history_${id}] what is it?` }], { stash });
      assert.equal(restored.report.restored, 1);
      // Listed from every node; its expiry is the key's own.
      const listed = (await stash.list()).find((e) => e.id === id);
      assert.ok(listed.expiresAt - Date.now() > 7100e3);
      // Deleted, both keys at once (one slot).
      await redisStash(client, { prefix }).putMany([[`${id}.meta`, { id, size: 1, createdAt: 1, expiresAt: Date.now() + 60e3 }]]);
      const node = await nodeOf(keysOf(prefix, id).image);
      assert.equal(await node.exists(keysOf(prefix, id).image, keysOf(prefix, id).meta), 2);
      await redisStash(client, { prefix }).delete(id);
      assert.equal(await node.exists(keysOf(prefix, id).image, keysOf(prefix, id).meta), 0);
    } finally {
      await close();
    }
  });

  test(`${kind} on a cluster: getMany and putMany take one round trip per node, whatever the number of records`, async () => {
    const { client, close } = await connectCluster(kind, cluster.ports);
    const trips = countRoundTrips(cluster.ports);
    try {
      const prefix = `batch-${kind}:`;
      const adapter = redisStash(client, { prefix });
      const ids = Array.from({ length: 24 }, (_, i) => md5(`${kind} record ${i}`));
      const expected = await onEachNode(ids.map((id) => keysOf(prefix, id).image), 1);
      assert.equal(Object.keys(expected).length, 3, 'the records are on every node');
      await adapter.getMany(ids.map((id) => `${id}.meta`));
      const expiresAt = Date.now() + 60e3;
      const entries = ids.flatMap((id, i) => [[id, { data: Buffer.from(`image ${i}`).toString('base64'), mime: 'image/png' }], [`${id}.meta`, { id, size: 7, createdAt: 1, expiresAt }]]);
      const exec = await calls('exec');
      trips.reset();
      await adapter.putMany(entries);
      assert.equal(trips.flowControlled(), false);
      assert.deepEqual(trips.counts(), expected);
      // A MULTI per slot (a record's keys share one): none spans slots.
      assert.equal(await calls('exec'), exec + new Set(await Promise.all(ids.map((id) => slotOf(keysOf(prefix, id).image)))).size);
      trips.reset();
      const got = await adapter.getMany([...ids, ...ids.map((id) => `${id}.meta`)]);
      assert.deepEqual(trips.counts(), expected);
      assert.deepEqual(got.slice(0, 24).map((r) => r.data), ids.map((_, i) => Buffer.from(`image ${i}`).toString('base64')));
      assert.deepEqual(got.slice(24).map((m) => [m.id, m.expiresAt]), ids.map((id) => [id, expiresAt]));
      const node = await nodeOf(keysOf(prefix, ids[0]).image);
      assert.equal(await node.pexpiretime(keysOf(prefix, ids[0]).image), expiresAt);
    } finally {
      trips.stop();
      await close();
    }
  });
}

test('the slots ctxpack/redis groups commands by are the ones Redis computes, hash tags and UTF-8 included', async () => {
  const require = createRequire(import.meta.url);
  const { slotOf: ours } = require('../../dist/adapters/redis-batch.cjs');
  const keys = ['', 'a', 'history_image_0123', '{t}:x', 'x{t}y', 'foo{}bar', '{}{t}', 'a{b', 'a}b{c}', '用户:history_image_é', 'dootask_ai:cache:ctxpack_meta_{dootask_ai:cache:history_image_00}'];
  for (let i = 0; i < 200; i++) keys.push(`tenant-${i}:history_image_${md5(String(i))}`);
  for (const key of keys) assert.equal(ours(key), await slotOf(key), key);
});

test('a prefix with a hash tag keeps a tenant in one slot, a round trip per call; a prefix whose braces would split a record is refused', async () => {
  const { client, close } = await connectCluster('ioredis', cluster.ports);
  const trips = countRoundTrips(cluster.ports);
  try {
    const prefix = '{tenant-7}:';
    const images = await Promise.all([1, 2, 3, 4].map((s) => png(90 + s)));
    const stash = await Stash.open({ backend: redisStash(client, { prefix }) });
    await redisStash(client, { prefix }).getMany([`${md5('warm')}.meta`]);
    trips.reset();
    const { messages, report } = await compactContext(chat(images), { stash, slack: false });
    assert.equal(report.written, 4);
    assert.deepEqual(trips.counts(), { [await portOf('{tenant-7}')]: 2 });
    assert.deepEqual((await expandContext(messages, { stash })).messages, chat(images));
    for (const bad of ['a}', 'a{', '{}x', 'x}{y']) assert.throws(() => redisStash(client, { prefix: bad }), TypeError, bad);
  } finally {
    trips.stop();
    await close();
  }
});

const peerScript = fileURLToPath(new URL('./support/redis_peer.mjs', import.meta.url));
/** Runs `job` of support/redis_peer.mjs in an OS process of its own. */
async function peer(job, options) {
  const { stdout } = await promisify(execFile)(process.execPath, [peerScript, job, JSON.stringify({ ports: cluster.ports, cluster: true, ...options })], { maxBuffer: 1 << 26 });
  return JSON.parse(stdout);
}

for (const [writer, reader] of [['node-redis', 'ioredis'], ['ioredis', 'node-redis']]) {
  test(`two server processes on a cluster: one compacts through ${writer}, the other answers get_history_image and expands through ${reader}`, async () => {
    const prefix = `processes-${writer}:`;
    const images = await Promise.all([1, 2, 3, 4].map((s) => png(s + (writer === 'ioredis' ? 60 : 50))));
    const ids = images.map(md5);
    const original = path.join(tmp, `original-${writer}.json`);
    writeFileSync(original, JSON.stringify(chat(images)));
    const compacted = await peer('compact', { client: writer, prefix, file: original });
    assert.equal(compacted.report.stashed, 4);
    const sent = path.join(tmp, `compacted-${writer}.json`);
    writeFileSync(sent, JSON.stringify(compacted.messages));
    const answered = await peer('answer', { client: reader, prefix, file: sent, ids });
    assert.ok(new Set([process.pid, compacted.pid, answered.pid]).size === 3, 'three processes');
    assert.deepEqual(answered.answers.map((parts) => parts.at(-1).image_url.url), images.map((b) => `data:image/png;base64,${b}`));
    assert.deepEqual(answered.messages, chat(images));
  });
}

for (const [n, kind] of KINDS.entries()) {
  test(`${kind} on a cluster: a node restarted mid-run loses nothing; what it held before is served after`, async () => {
    const { client, close } = await connectCluster(kind, cluster.ports);
    try {
      const prefix = `restart-${kind}:`;
      const images = await Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map((s) => png(70 + 10 * n + s)));
      const ids = images.map(md5);
      const stash = await Stash.open({ backend: redisStash(client, { prefix }) });
      const first = await compactContext(chat(images.slice(0, 6)), { stash, slack: false });
      assert.equal(first.report.written, 6);
      const { image } = keysOf(prefix, ids[0]);
      const victim = cluster.ports.indexOf(await portOf(image));
      let during;
      await cluster.restart(victim, {
        async whileDown() {
          // A turn while the node is down: a client may fail it or hold it until the node is back.
          during = compactContext(chat(images.slice(0, 7)), { stash, slack: false });
          await new Promise((r) => setTimeout(r, 300));
        },
      });
      const mid = await during;
      // Either way nothing is lost: an image is a placeholder for its record, or inline with a STASH_ failure.
      assert.deepEqual((await expandContext(mid.messages, { stash })).messages, chat(images.slice(0, 7)));
      assert.equal(mid.report.stashed + mid.report.failures.filter((f) => f.md5).length, 7);
      for (const f of mid.report.failures) assert.match(f.code, /^STASH_/);
      // The node's append-only file kept its records.
      assert.deepEqual(JSON.parse(await admins[victim].get(image)), { data: images[0], mime_type: 'image/png' });
      // The run goes on: the history confirmed, the new images written.
      const after = await compactContext(chat(images), { stash, slack: false });
      assert.deepEqual([after.report.stashed, after.report.failures.length], [8, 0]);
      assert.ok(after.report.written <= 2, `${after.report.written} written: the records kept are not written again`);
      assert.deepEqual((await expandContext(after.messages, { stash })).messages, chat(images));
      assert.equal((await getHistoryImage(stash, `history_${ids[0]}`)).at(-1).image_url.url, `data:image/png;base64,${images[0]}`);
    } finally {
      await close();
    }
  });
}
