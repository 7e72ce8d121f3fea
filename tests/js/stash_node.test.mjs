// History compaction with the Node build and the file-system stash
// (`ctxpack/node`), as a VSCode desktop extension uses them.
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, writeFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Stash, compactContext, expandContext, getHistoryImage, historyImageTool, CtxpackError } from 'ctxpack';
import { fileStash } from 'ctxpack/node';
import { makeImage } from '../fixtures/make.mjs';
import { createHash } from 'node:crypto';

const md5 = (s) => createHash('md5').update(s).digest('hex');
const tmp = () => mkdtempSync(path.join(os.tmpdir(), 'ctxpack-stash-'));

async function conversation() {
  const old = (await makeImage('jpeg', 64, 48, 21)).toString('base64');
  const fresh = (await makeImage('png', 32, 32, 22)).toString('base64');
  const messages = [
    { role: 'system', content: 'You are helpful.' },
    { role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/jpeg;base64,${old}`, detail: 'high' } }, { type: 'text', text: '这是什么？' }] },
    { role: 'assistant', content: '这是一只猫...' },
    { role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${fresh}` } }, { type: 'text', text: '这张新图呢？' }] },
  ];
  return { messages, old, fresh };
}

const deepFreeze = (v) => {
  if (v && typeof v === 'object') {
    Object.freeze(v);
    for (const k of Object.keys(v)) deepFreeze(v[k]);
  }
  return v;
};

test('compacts into files, survives a new Stash on the same directory, expands back', async () => {
  const dir = tmp();
  try {
    const { messages, old } = await conversation();
    const snapshot = JSON.stringify(messages);
    deepFreeze(messages);
    const stash = await Stash.open({ backend: fileStash(dir) });
    assert.equal(stash.backend, 'adapter');
    const progress = [];
    const { messages: compacted, report } = await compactContext(messages, { stash, onProgress: (p) => progress.push(p) });
    assert.equal(JSON.stringify(messages), snapshot, 'input untouched');
    assert.equal(compacted[1].content[0].text, `[Picture:history_${md5(old)}]`);
    assert.equal(compacted[3], messages[3], 'newest user message is the same object');
    assert.equal(report.stashed, 1);
    assert.ok(report.bytesAfter < report.bytesBefore);
    assert.deepEqual(progress, [{ done: 1, total: 1, bytes: old.length }]);
    assert.deepEqual(readdirSync(dir).sort(), [`${md5(old)}.json`, `${md5(old)}.meta.json`]);
    stash.close();

    const reopened = await Stash.open({ backend: fileStash(dir) });
    const { messages: back, report: r2 } = await expandContext(compacted, { stash: reopened });
    assert.deepEqual(back, JSON.parse(snapshot));
    assert.equal(r2.restored, 1);
    const [part] = await getHistoryImage(reopened, `history_${md5(old)}`, { format: 'anthropic' });
    assert.deepEqual(part, { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: old } });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a file system that refuses writes leaves images inline and says why', async () => {
  const dir = tmp();
  try {
    const blocked = path.join(dir, 'not-a-dir');
    writeFileSync(blocked, 'a file where the stash directory should be');
    const stash = await Stash.open({ backend: fileStash(blocked) });
    const { messages } = await conversation();
    const out = await compactContext(messages, { stash });
    assert.deepEqual(out.messages, messages);
    assert.equal(out.report.failed, 1);
    const image = out.report.failures.find((f) => f.path === 'messages[1].content[0]');
    assert.equal(image.code, 'STASH_WRITE_FAILED');
    assert.match(image.reason, /EEXIST|ENOTDIR/);
    // Listing failed too, and says so without a path.
    assert.ok(out.report.failures.some((f) => f.path === '' && f.code === 'STASH_READ_FAILED'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the file stash refuses keys that would escape its directory', async () => {
  const dir = tmp();
  try {
    const adapter = fileStash(dir);
    for (const key of ['../evil', '/etc/passwd', 'a/b', '..', '', 'x'.repeat(200), 'a\\b']) {
      await assert.rejects(adapter.put(key, {}), (e) => e.name === 'DataError', key);
      await assert.rejects(adapter.get(key), (e) => e.name === 'DataError', key);
    }
    writeFileSync(path.join(dir, 'stray.txt'), 'x');
    assert.deepEqual(await adapter.keys(), []);
    const stash = await Stash.open({ backend: adapter });
    const parts = await getHistoryImage(stash, '../../../etc/passwd', { lang: 'zh' });
    assert.deepEqual(parts, [{ type: 'text', text: '无效的图片标识符' }]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('memory stash, tool definitions and errors', async () => {
  const stash = await Stash.open({ backend: 'memory', ttlSeconds: 60, maxBytes: 1e6 });
  assert.equal(stash.ttlSeconds, 60);
  assert.equal(stash.maxBytes, 1e6);
  const openai = historyImageTool('openai');
  assert.equal(openai.function.name, 'get_history_image');
  assert.deepEqual(openai.function.parameters.required, ['image_md5']);
  assert.equal(historyImageTool('mcp').inputSchema.properties.image_md5.type, 'string');
  await assert.rejects(compactContext([], { stash: 'nope' }), (e) => e instanceof CtxpackError && e.path === 'options.stash');
  await assert.rejects(Stash.open(), (e) => e.code === 'STASH_UNAVAILABLE');
  await assert.rejects(compactContext([{ role: 'user', content: [{ type: 'image_url' }] }], { stash }), (e) => e.code === 'INVALID_MESSAGE' && e.path === 'messages[0].content[0].image_url');
});

test('a stash freed while calls on it are pending: the calls still settle, later ones are refused', async () => {
  const { messages, old } = await conversation();
  const stash = await Stash.open({ backend: 'memory', maxBytes: 1 });
  await compactContext(messages, { stash });
  const pending = [stash.list(), stash.sweep(), stash.clear()];
  stash.free();
  const [entries, swept, cleared] = await Promise.all(pending);
  assert.deepEqual(entries.map((e) => e.id), [md5(old)]);
  assert.deepEqual([swept.expired, swept.evicted], [0, 1], 'over the 1-byte budget');
  assert.equal(cleared, undefined);

  const closed = await Stash.open({ backend: 'memory' });
  closed.close();
  for (const call of [() => closed.list(), () => closed.sweep(), () => closed.clear()]) {
    await assert.rejects(call(), (e) => e instanceof CtxpackError && e.code === 'STASH_UNAVAILABLE');
  }
});

/** A stash adapter over a Map, as an app writes one. */
function mapAdapter() {
  const entries = new Map();
  const adapter = {
    get: async (k) => entries.get(k),
    put: async (k, v) => { entries.set(k, v); },
    delete: async (k) => { entries.delete(k); },
    keys: async () => [...entries.keys()],
  };
  return { entries, adapter };
}

test('an adapter\'s meta objects: a field that is missing or undefined reads as zero or empty, one of another type makes the record unlisted', async () => {
  const { entries, adapter } = mapAdapter();
  const stash = await Stash.open({ backend: adapter });
  const { messages, old } = await conversation();
  await compactContext(messages, { stash });
  const [listed] = await stash.list();
  assert.equal(listed.id, md5(old));
  assert.equal(listed.mime, 'image/jpeg');
  assert.ok(listed.size > 0 && listed.storedBytes === old.length && listed.expiresAt > listed.createdAt, JSON.stringify(listed));
  const meta = entries.get(`${md5(old)}.meta`);
  const put = (id, fields) => entries.set(`${id}.meta`, { ...meta, id, ...fields });
  // As an older version wrote it (no storedBytes, no part, no lastUsedAt):
  // the missing fields read as zero.
  const older = md5('older');
  const { storedBytes, part, lastUsedAt, ...withoutThem } = meta;
  entries.set(`${older}.meta`, { ...withoutThem, id: older });
  // As an adapter that writes undefined for what it lacks: the same.
  const undefinedFields = md5('undefined fields');
  put(undefinedFields, { storedBytes: undefined, part: undefined, lastUsedAt: undefined });
  // Fields of the wrong type (null among them), a size that is no whole
  // number, a part that is no string, no id: none of them is a meta.
  const bad = [
    { size: '12' }, { size: 1.5 }, { size: -1 }, { expiresAt: 'soon' }, { lastUsedAt: null }, { lastUsedAt: 'now' },
    { mime: 7 }, { part: 3 }, { id: 5 }, { size: 2 ** 53 },
    { files: 'file-1' }, { files: [null] }, { files: [{ account: 'k', id: 'file-1' }] }, { files: [{ provider: 'openai', id: 7 }] },
  ];
  // The files an image was uploaded as, read back with it.
  const withFiles = md5('with files');
  const files = [{ provider: 'openai', account: 'k', id: 'file-1', expiresAt: 1234 }, { provider: 'gemini', account: '', uri: 'https://files/x' }];
  put(withFiles, { files });
  bad.forEach((fields, i) => put(md5(`bad ${i}`), fields));
  entries.set(`${md5('null')}.meta`, null);
  const ids = (await stash.list()).map((e) => e.id).sort();
  assert.deepEqual(ids, [md5(old), older, undefinedFields, withFiles].sort());
  assert.deepEqual((await stash.list()).find((e) => e.id === withFiles).files, files);
  for (const id of [older, undefinedFields]) {
    const read = (await stash.list()).find((e) => e.id === id);
    assert.equal(read.storedBytes, 0, id);
    assert.equal(read.lastUsedAt, 0, id);
    assert.equal(read.size, meta.size, id);
    assert.equal(read.expiresAt, meta.expiresAt, id);
  }
  stash.free();
});

test('an adapter\'s meta with an undefined expiry or last use is swept and evicted like any other', async () => {
  const { entries, adapter } = mapAdapter();
  const { messages, old } = await conversation();
  const first = await Stash.open({ backend: adapter });
  await compactContext(messages, { stash: first });
  first.free();
  const meta = entries.get(`${md5(old)}.meta`);
  assert.ok(meta.lastUsedAt > 0, JSON.stringify(meta));
  // Expired (its expiry reads as 0), and the least recently used (its last
  // use reads as 0), each as large as the compacted image.
  const [stale, idle] = [md5('stale'), md5('idle')];
  for (const [id, fields] of [[stale, { expiresAt: undefined }], [idle, { lastUsedAt: undefined }]]) {
    entries.set(id, { ...entries.get(md5(old)), id });
    entries.set(`${id}.meta`, { ...meta, id, ...fields });
  }
  // A budget of one image's bytes: one of the two live records must go.
  const stash = await Stash.open({ backend: adapter, maxBytes: old.length });
  assert.deepEqual((await stash.list()).map((e) => e.id).sort(), [md5(old), stale, idle].sort());
  const swept = await stash.sweep();
  assert.deepEqual([swept.expired, swept.evicted, swept.bytes], [1, 1, old.length]);
  assert.deepEqual([...entries.keys()].sort(), [md5(old), `${md5(old)}.meta`]);
  stash.free();
});
