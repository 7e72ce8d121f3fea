// ctxpack/redis against Debian's redis-server, started here on a free port
// (append-only persistence in a folder of its own), through both clients an
// app brings: node-redis (`redis`) and `ioredis`. The records are the ones a
// server that keeps history images in Redis writes
// (`<prefix>history_image_<md5>` → `{"data","mime_type"}`, EX 7200).
import test from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createClient } from 'redis';
import Redis from 'ioredis';
import { Stash, compactContext, expandContext, getHistoryImage } from 'ctxpack';
import { redisStash } from 'ctxpack/redis';
import { makeImage } from '../fixtures/make.mjs';
import { freePort, serverPid, startRedis } from './support/redis.mjs';
import { countRoundTrips } from './support/round_trips.mjs';

const md5 = (s) => createHash('md5').update(s).digest('hex');
const PREFIX = 'dootask_ai:cache:';

const dir = mkdtempSync(path.join(os.tmpdir(), 'ctxpack-redis-'));
const port = await freePort();
let server = await startRedis(port, dir);
test.after(() => {
  server.kill();
  rmSync(dir, { recursive: true, force: true });
});

/** The two clients, connected. */
async function clients() {
  const nodeRedis = createClient({ url: `redis://127.0.0.1:${port}` });
  await nodeRedis.connect();
  const io = new Redis({ port, host: '127.0.0.1', lazyConnect: false });
  if (io.status !== 'ready') await new Promise((resolve) => io.once('ready', resolve));
  return [['node-redis', nodeRedis, (...a) => nodeRedis.sendCommand(a.map(String))], ['ioredis', io, (...a) => io.call(...a)]];
}
const close = async (kind, c) => (kind === 'ioredis' ? c.disconnect() : c.destroy ? c.destroy() : c.disconnect());

const png = async (seed) => (await makeImage('png', 48, 32, seed)).toString('base64');
const conversation = (a, b) => [
  { role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${a}` } }, { type: 'text', text: 'this one?' }] },
  { role: 'assistant', content: 'yes' },
  { role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${b}` } }, { type: 'text', text: 'and this?' }] },
  { role: 'assistant', content: 'also' },
  { role: 'user', content: 'compare them' },
];
const stats = async (cmd) => {
  const info = String(await cmd('INFO', 'commandstats'));
  const calls = (name) => Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(info)?.[1] ?? 0);
  return { scan: calls('scan'), keys: calls('keys'), multi: calls('multi'), exec: calls('exec') };
};

for (const kind of ['node-redis', 'ioredis']) {
  test(`${kind}: compaction writes the seed's records, reads them back, and never scans the store`, async () => {
    const all = await clients();
    const [, client, cmd] = all.find(([k]) => k === kind);
    try {
      const tenant = `${PREFIX}${kind}:`;
      // Other conversations and tenants in the same Redis.
      const others = [];
      for (let i = 0; i < 2000; i++) others.push(`other-tenant:${kind}:history_image_${i}`, 'x');
      await cmd('MSET', ...others);
      assert.ok(Number(await cmd('DBSIZE')) >= 2000);
      const stash = await Stash.open({ backend: redisStash(client, { prefix: tenant }), ttlSeconds: 7200 });
      const a = await png(kind === 'ioredis' ? 11 : 1);
      const b = await png(kind === 'ioredis' ? 12 : 2);
      const before = await stats(cmd);
      const { messages, report } = await compactContext(conversation(a, b), { stash, slack: false });
      const after = await stats(cmd);
      assert.equal(report.stashed, 2);
      assert.equal(report.written, 2);
      assert.deepEqual([after.scan - before.scan, after.keys - before.keys], [0, 0], 'no SCAN, no KEYS');
      // Exactly one lookup and one write, each a MULTI: no command outside a
      // transaction, no transaction per record.
      assert.deepEqual([after.multi - before.multi, after.exec - before.exec], [2, 2], 'one lookup, one write');
      // The image record is exactly the seed's, expiring with the stash's TTL.
      const value = JSON.parse(await cmd('GET', `${tenant}history_image_${md5(a)}`));
      assert.deepEqual(Object.keys(value).sort(), ['data', 'mime_type']);
      assert.deepEqual(value, { data: a, mime_type: 'image/png' });
      const ttl = Number(await cmd('TTL', `${tenant}history_image_${md5(a)}`));
      assert.ok(ttl > 7100 && ttl <= 7200, `TTL ${ttl}`);
      // ctxpack's bookkeeping in a key of its own.
      const meta = JSON.parse(await cmd('GET', `${tenant}ctxpack_meta_{${tenant}history_image_${md5(a)}}`));
      assert.equal(meta.id, md5(a));
      assert.ok(!('data' in meta));
      // Read back: the tool, and expansion to the exact original parts.
      const parts = await getHistoryImage(stash, `history_${md5(a)}`);
      assert.equal(parts.at(-1).image_url.url, `data:image/png;base64,${a}`);
      const back = await expandContext(messages, { stash });
      assert.deepEqual(back.messages, conversation(a, b));
      // Sent again: confirmed in one lookup, nothing written.
      const again = await compactContext(conversation(a, b), { stash, slack: false });
      assert.equal(again.report.written, 0);
      assert.equal(again.report.stashed, 2);
      assert.equal((await stats(cmd)).scan, after.scan);
      // An image Redis evicted while its meta stayed is written again, never
      // left as a placeholder for nothing.
      await cmd('DEL', `${tenant}history_image_${md5(a)}`);
      const evicted = await compactContext(conversation(a, b), { stash, slack: false });
      assert.equal(evicted.report.written, 1);
      assert.deepEqual(JSON.parse(await cmd('GET', `${tenant}history_image_${md5(a)}`)), { data: a, mime_type: 'image/png' });
    } finally {
      for (const [k, c] of all) await close(k, c);
    }
  });

  test(`${kind}: a record the seed's server wrote, with no bookkeeping, is served`, async () => {
    const all = await clients();
    const [, client, cmd] = all.find(([k]) => k === kind);
    try {
      const data = await png(kind === 'ioredis' ? 23 : 21);
      const id = md5(data);
      await cmd('SET', `${PREFIX}history_image_${id}`, JSON.stringify({ data, mime_type: 'image/png' }), 'EX', 7200);
      const stash = await Stash.open({ backend: redisStash(client, { prefix: PREFIX }), ttlSeconds: 7200 });
      const parts = await getHistoryImage(stash, `history_${id}`);
      assert.equal(parts.at(-1).image_url.url, `data:image/png;base64,${data}`);
      const restored = await expandContext([{ role: 'user', content: `[Picture:history_${id}] what is it?` }], { stash });
      assert.equal(restored.report.restored, 1);
      // Its expiry is the key's own.
      const listed = (await stash.list()).find((e) => e.id === id);
      assert.ok(listed.expiresAt - Date.now() > 7100e3);
    } finally {
      for (const [k, c] of all) await close(k, c);
    }
  });
  test(`${kind}: getMany and putMany take one round trip to a single Redis, whatever the number of records`, async () => {
    const all = await clients();
    const [, client, cmd] = all.find(([k]) => k === kind);
    const trips = countRoundTrips([port]);
    try {
      const adapter = redisStash(client, { prefix: `batch-${kind}:` });
      const ids = Array.from({ length: 24 }, (_, i) => md5(`${kind} record ${i}`));
      const data = (i) => Buffer.from(`image ${i}`).toString('base64');
      const expiresAt = Date.now() + 60e3;
      const entries = ids.flatMap((id, i) => [[id, { data: data(i), mime: 'image/png' }], [`${id}.meta`, { id, size: 7, createdAt: 1, expiresAt }]]);
      const before = await stats(cmd);
      trips.reset();
      await adapter.putMany(entries);
      const written = trips.total();
      trips.reset();
      const got = await adapter.getMany([...ids, ...ids.map((id) => `${id}.meta`), 'not-a-record']);
      const read = trips.total();
      const after = await stats(cmd);
      assert.equal(trips.flowControlled(), false);
      assert.deepEqual([written, read], [1, 1], 'round trips of putMany, getMany');
      assert.deepEqual([after.multi - before.multi, after.exec - before.exec], [2, 2]);
      assert.deepEqual(got.slice(0, 24).map((r) => r.data), ids.map((_, i) => data(i)));
      assert.deepEqual(got.slice(24, 48).map((m) => [m.id, m.expiresAt]), ids.map((id) => [id, expiresAt]));
      assert.equal(got[48], undefined);
    } finally {
      trips.stop();
      for (const [k, c] of all) await close(k, c);
    }
  });
}

test('a compaction that references a record again renews both its keys to the expiry it writes, however long the call takes', async () => {
  const all = await clients();
  const [, client, cmd] = all[1];
  try {
    const stash = await Stash.open({ backend: redisStash(client, { prefix: 'renew:' }), ttlSeconds: 10 });
    const a = await png(61);
    const image = `renew:history_image_${md5(a)}`;
    const meta = `renew:ctxpack_meta_{${image}}`;
    const { messages } = await compactContext(conversation(a, await png(62)), { stash, slack: false });
    const first = Number(await cmd('PEXPIRETIME', image));
    // A tenth of the TTL later a reference renews the record.
    await new Promise((r) => setTimeout(r, 1500));
    const start = Date.now();
    const again = await compactContext(messages, { stash, slack: false });
    const end = Date.now();
    assert.equal(again.report.refreshed, 2);
    // The new expiry is a TTL after a moment of the call, and both keys
    // expire exactly then (Redis's own absolute expiry of each key).
    const { expiresAt } = JSON.parse(await cmd('GET', meta));
    assert.ok(expiresAt >= start + 10000 && expiresAt <= end + 10000, `${expiresAt - start} ms after the call began`);
    assert.ok(expiresAt > first);
    for (const key of [image, meta]) assert.equal(Number(await cmd('PEXPIRETIME', key)), Math.round(expiresAt), key);
  } finally {
    for (const [k, c] of all) await close(k, c);
  }
});

test('tenants stay apart: one prefix never answers another tenant\'s id, even when the md5 is known', async () => {
  const all = await clients();
  const [, client] = all[0];
  try {
    const alice = await Stash.open({ backend: redisStash(client, { prefix: 'tenant-alice:' }) });
    const bob = await Stash.open({ backend: redisStash(client, { prefix: 'tenant-bob:' }) });
    const a = await png(31);
    const { messages } = await compactContext(conversation(a, await png(32)), { stash: alice, slack: false });
    const parts = await getHistoryImage(bob, `history_${md5(a)}`);
    assert.equal(parts.length, 1);
    assert.equal(parts[0].type, 'text');
    const back = await expandContext(messages, { stash: bob });
    assert.equal(back.report.restored, 0);
    assert.equal(back.report.missing.length, 2);
    // A caller's id is never a key pattern: anything but an md5 reads as missing.
    assert.equal((await getHistoryImage(bob, 'history_*'))[0].type, 'text');
    assert.equal(await redisStash(client, { prefix: 'tenant-alice:' }).get('*'), undefined);
  } finally {
    for (const [k, c] of all) await close(k, c);
  }
});

test('two servers compacting at once lose nothing; each answers the other\'s images', async () => {
  const all = await clients();
  try {
    const [one, two] = await Promise.all(all.map(([, c]) => Stash.open({ backend: redisStash(c, { prefix: 'shared:' }) })));
    const shots = await Promise.all([41, 42, 43, 44].map(png));
    const [x, y] = await Promise.all([
      compactContext(conversation(shots[0], shots[1]), { stash: one, slack: false }),
      compactContext(conversation(shots[1], shots[2]), { stash: two, slack: false }),
    ]);
    assert.equal(x.report.stashed + y.report.stashed, 4);
    assert.deepEqual((await expandContext(x.messages, { stash: two })).messages, conversation(shots[0], shots[1]));
    assert.deepEqual((await expandContext(y.messages, { stash: one })).messages, conversation(shots[1], shots[2]));
  } finally {
    for (const [k, c] of all) await close(k, c);
  }
});

test('two server processes on one Redis: one compacts through node-redis, the other answers get_history_image and expands through ioredis', async () => {
  const peer = async (job, options) => JSON.parse((await promisify(execFile)(process.execPath, [fileURLToPath(new URL('./support/redis_peer.mjs', import.meta.url)), job, JSON.stringify({ ports: [port], cluster: false, prefix: 'processes:', ...options })], { maxBuffer: 1 << 26 })).stdout);
  const shots = await Promise.all([45, 46].map(png));
  writeFileSync(path.join(dir, 'original.json'), JSON.stringify(conversation(...shots)));
  const compacted = await peer('compact', { client: 'node-redis', file: path.join(dir, 'original.json') });
  assert.equal(compacted.report.stashed, 2);
  writeFileSync(path.join(dir, 'compacted.json'), JSON.stringify(compacted.messages));
  const answered = await peer('answer', { client: 'ioredis', file: path.join(dir, 'compacted.json'), ids: shots.map(md5) });
  assert.equal(new Set([process.pid, compacted.pid, answered.pid]).size, 3, 'three processes');
  assert.deepEqual(answered.answers.map((parts) => parts.at(-1).image_url.url), shots.map((b) => `data:image/png;base64,${b}`));
  assert.deepEqual(answered.messages, conversation(...shots));
});

test('with Redis unreachable the images stay inline and the report says why; after a restart everything written is served', async () => {
  const all = await clients();
  const [, client] = all[0];
  const a = await png(51);
  const b = await png(52);
  const stash = await Stash.open({ backend: redisStash(client, { prefix: 'restart:' }) });
  const { messages } = await compactContext(conversation(a, b), { stash, slack: false });
  for (const [k, c] of all) await close(k, c);

  const down = new Redis({ port: await freePort(), host: '127.0.0.1', lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
  down.on('error', () => {});
  const offline = await Stash.open({ backend: redisStash(down, { prefix: 'restart:' }) });
  const c = await png(53);
  const failed = await compactContext(conversation(c, a), { stash: offline, slack: false });
  assert.equal(failed.report.stashed, 0);
  assert.deepEqual(failed.messages, conversation(c, a), 'never a placeholder for an unwritten record');
  assert.ok(failed.report.failures.length > 0);
  assert.match(failed.report.failures[0].code, /^STASH_/);
  down.disconnect();

  // Restart with persistence: what was written is served again.
  await new Promise((resolve) => { server.once('exit', resolve); server.kill('SIGTERM'); });
  server = await startRedis(port, dir);
  const again = new Redis({ port, host: '127.0.0.1' });
  try {
    const restarted = await Stash.open({ backend: redisStash(again, { prefix: 'restart:' }) });
    assert.deepEqual((await expandContext(messages, { stash: restarted })).messages, conversation(a, b));
  } finally {
    again.disconnect();
  }
});

test('the tests\' redis-server is the one they started: a second one on a taken port is refused, never mistaken for its own', async () => {
  const other = mkdtempSync(path.join(os.tmpdir(), 'ctxpack-redis-other-'));
  try {
    await assert.rejects(startRedis(port, other), /could not start on port/);
    assert.equal(await serverPid(port), server.pid);
  } finally {
    rmSync(other, { recursive: true, force: true });
  }
});

test('ctxpack/redis loads through require as through import', () => {
  const require = createRequire(import.meta.url);
  assert.equal(typeof require('ctxpack/redis').redisStash, 'function');
  assert.equal(require('ctxpack/redis').redisStash, redisStash);
  assert.throws(() => redisStash({}), TypeError);
});
