// The web build in a page with real IndexedDB: compaction, then a page
// reload, then expansion from what IndexedDB kept.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { serve } from '../../scripts/serve.mjs';
import { launch } from './support/browser.mjs';
import { makeImage } from '../fixtures/make.mjs';

let server;
let browser;
let page;

const load = async () => {
  await page.goto(`${server.url}/tests/js/support/blank.html`);
  await page.evaluate(async () => {
    const mod = await import('/dist/web/index.js');
    await mod.default();
    window.ctxpack = mod;
  });
};

before(async () => {
  server = await serve();
  browser = await launch();
  page = await browser.newPage();
  await load();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('the stash survives a page reload and expands every image back', async () => {
  const images = await Promise.all([
    makeImage('png', 40, 30, 31),
    makeImage('jpeg', 50, 40, 32),
    makeImage('gif', 20, 20, 33),
    makeImage('webp', 30, 30, 34),
  ]);
  const b64 = images.map((b) => b.toString('base64'));
  const dbName = `reload-${Math.random().toString(36).slice(2)}`;
  const messages = [
    { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: b64[0] } }, { type: 'text', text: 'one' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: b64[1] } }] }] },
    { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/gif', data: b64[2] } }] },
    { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/webp', data: b64[3] } }, { type: 'text', text: 'newest' }] },
  ];
  const compacted = await page.evaluate(async ({ messages, dbName }) => {
    const stash = await window.ctxpack.Stash.open({ name: dbName });
    const out = await window.ctxpack.compactContext(messages, { stash });
    const list = await stash.list();
    stash.close();
    return { ...out, list, backend: stash.backend };
  }, { messages, dbName });
  assert.equal(compacted.backend, 'indexeddb');
  assert.equal(compacted.report.format, 'anthropic');
  assert.equal(compacted.report.stashed, 3);
  assert.equal(compacted.list.length, 3);
  assert.deepEqual(compacted.messages[4], messages[4]);
  const text = JSON.stringify(compacted.messages.slice(0, 4));
  for (const b of b64.slice(0, 3)) assert.ok(!text.includes(b.slice(0, 40)));

  await page.reload();
  await load();
  const expanded = await page.evaluate(async ({ messages, dbName }) => {
    const stash = await window.ctxpack.Stash.open({ name: dbName });
    const out = await window.ctxpack.expandContext(messages, { stash });
    const tool = await window.ctxpack.getHistoryImage(stash, messages[3].content[0].text.slice(9, -1));
    stash.close();
    await new Promise((r) => { const d = indexedDB.deleteDatabase(dbName); d.onsuccess = d.onerror = r; });
    return { ...out, tool };
  }, { messages: compacted.messages, dbName });
  assert.deepEqual(expanded.messages, messages);
  assert.equal(expanded.report.restored, 3);
  assert.deepEqual(expanded.tool, [{ type: 'image_url', image_url: { url: `data:image/gif;base64,${b64[2]}` } }]);
});

test('offloaded images: the files they were uploaded as survive a reload in IndexedDB, so nothing is uploaded again', async () => {
  const images = await Promise.all([makeImage('png', 60, 40, 41), makeImage('jpeg', 64, 48, 42)]);
  const b64 = images.map((b) => b.toString('base64'));
  const dbName = `offload-${Math.random().toString(36).slice(2)}`;
  const messages = [
    { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: b64[0] } }, { type: 'text', text: 'one' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
    { role: 'user', content: [{ type: 'text', text: 'two' }, { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: b64[1] } }] },
    { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
    { role: 'user', content: [{ type: 'text', text: 'newest' }] },
  ];
  // One turn of the app: compaction with offload, each upload counted.
  const turn = (messages, dbName) => page.evaluate(async ({ messages, dbName }) => {
    const uploads = [];
    const upload = async ({ md5, mediaType, data }) => {
      uploads.push({ md5, mediaType, bytes: data.length });
      return { id: `file_${md5}`, expiresAt: Date.now() + 24 * 3600 * 1000 };
    };
    const stash = await window.ctxpack.Stash.open({ name: dbName });
    const out = await window.ctxpack.compactContext(messages, { stash, keepRecentImages: 5, offload: { upload, minBytes: 0 } });
    const list = await stash.list();
    stash.close();
    return { ...out, uploads, list };
  }, { messages, dbName });

  const first = await turn(messages, dbName);
  assert.equal(first.report.uploaded, 2);
  assert.deepEqual(first.uploads.map((u) => u.mediaType).sort(), ['image/jpeg', 'image/png']);
  assert.deepEqual(first.messages[0].content[0], { type: 'image', source: { type: 'file', file_id: `file_${first.uploads.find((u) => u.mediaType === 'image/png').md5}` } });
  for (const b of b64) assert.ok(!JSON.stringify(first.messages).includes(b.slice(0, 40)));
  assert.deepEqual(first.list.map((e) => e.files.length), [1, 1]);

  await page.reload();
  await load();
  const again = await turn(messages, dbName);
  assert.equal(again.uploads.length, 0, 'the files were remembered across the reload');
  assert.equal(again.report.offloaded, 2);
  assert.deepEqual(again.messages, first.messages);
  const expanded = await page.evaluate(async ({ messages, dbName }) => {
    const stash = await window.ctxpack.Stash.open({ name: dbName });
    const out = await window.ctxpack.expandContext(messages, { stash });
    stash.close();
    await new Promise((r) => { const d = indexedDB.deleteDatabase(dbName); d.onsuccess = d.onerror = r; });
    return out;
  }, { messages: again.messages, dbName });
  assert.deepEqual(expanded.messages, messages);
});

test('the database deleted by another tab mid-conversation: nothing wrong comes back, the next call works', async () => {
  const png = (await makeImage('png', 12, 12, 91)).toString('base64');
  const gif = (await makeImage('gif', 12, 12, 92)).toString('base64');
  const out = await page.evaluate(async ({ png, gif }) => {
    const { Stash, compactContext, expandContext } = window.ctxpack;
    const name = `deleted-${Math.random().toString(36).slice(2)}`;
    const stash = await Stash.open({ name });
    const first = [{ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } }] }, { role: 'user', content: 'next' }];
    const { messages: compacted } = await compactContext(first, { stash });
    // Another tab deletes the database: ours closes on versionchange so the delete is not blocked.
    await new Promise((resolve, reject) => { const d = indexedDB.deleteDatabase(name); d.onsuccess = resolve; d.onerror = () => reject(d.error); d.onblocked = () => reject(new Error('blocked')); });
    const lost = await expandContext(compacted, { stash });
    const second = [...compacted, { role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/gif;base64,${gif}` } }] }, { role: 'user', content: 'again' }];
    const again = await compactContext(second, { stash });
    const back = await expandContext(again.messages, { stash });
    stash.close();
    await new Promise((r) => { const d = indexedDB.deleteDatabase(name); d.onsuccess = d.onerror = r; });
    return { lost: lost.report, lostMessages: lost.messages, compacted, again: again.report, back: back.messages, backReport: back.report };
  }, { png, gif });
  assert.deepEqual(out.lostMessages, out.compacted, 'the placeholder stays: no wrong image');
  assert.equal(out.lost.missing.length, 1);
  assert.equal(out.again.stashed, 1, 'the next call works (the database is recreated)');
  assert.equal(out.again.missing, 1, 'and reports the record that went with the database');
  assert.equal(out.back[2].content[0].image_url.url, `data:image/gif;base64,${gif}`);
});

test('wasm memory stays bounded: a 24 MB history through a fresh instance', async () => {
  const p = await browser.newPage();
  await p.goto(`${server.url}/tests/js/support/blank.html`);
  const out = await p.evaluate(async () => {
    const mod = await import('/dist/web/index.js');
    const wasm = await mod.default();
    const before = wasm.memory.buffer.byteLength;
    // 24 distinct images of 1 MB of base64 each.
    const messages = [];
    for (let i = 0; i < 24; i++) {
      const bytes = new Uint8Array(768 * 1024);
      for (let j = 0; j < bytes.length; j += 4096) bytes[j] = (i * 31 + j) & 0xff;
      bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 0);
      let bin = '';
      for (let j = 0; j < bytes.length; j += 8192) bin += String.fromCharCode(...bytes.subarray(j, j + 8192));
      messages.push({ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${btoa(bin)}` } }] });
    }
    messages.push({ role: 'user', content: 'compare' });
    const stash = await mod.Stash.open({ name: `mem-${Math.random()}` });
    const { report } = await mod.compactContext(messages, { stash });
    const { report: back } = await mod.expandContext((await mod.compactContext(messages, { stash })).messages, { stash });
    stash.close();
    return { before, after: wasm.memory.buffer.byteLength, stashed: report.stashed, restored: back.restored };
  });
  await p.close();
  assert.equal(out.stashed, 24);
  assert.equal(out.restored, 24);
  const largest = 1024 * 1024;
  assert.ok(out.after <= 3 * largest + 4 * 1024 * 1024, `wasm memory ${out.after} bytes for 24 MB of images`);
});

test('the database deleted by another tab during a compaction: the images stay inline', async () => {
  const png = (await makeImage('png', 40, 40, 93)).toString('base64');
  // Another tab deletes the database at a chosen point of the compaction's
  // write, found by wrapping IDBDatabase.prototype.transaction: as the
  // write's transaction is created ('start'), or from its complete event
  // ('committed'). Each point has one right outcome.
  const out = await page.evaluate(async ({ png }) => {
    const { Stash, compactContext } = window.ctxpack;
    const messages = [{ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } }] }, { role: 'user', content: 'next' }];
    /** Deletes database `name` when this page next starts a write of images
     * in it, at `when`. Resolves, once the deletion succeeded, to the events
     * seen in order: the connection's versionchange, the write's complete,
     * the deletion's blocked. */
    const deleteDuringWrite = (name, when) => new Promise((resolve, reject) => {
      const proto = IDBDatabase.prototype;
      const transaction = proto.transaction;
      proto.transaction = function (stores, mode, ...rest) {
        const tx = transaction.call(this, stores, mode, ...rest);
        if (this.name === name && mode === 'readwrite' && [].concat(stores).includes('images')) {
          proto.transaction = transaction;
          const events = [];
          this.addEventListener('versionchange', () => events.push('versionchange'));
          tx.addEventListener('complete', () => events.push('complete'));
          const remove = () => {
            const d = indexedDB.deleteDatabase(name);
            d.onblocked = () => events.push('blocked');
            d.onsuccess = () => resolve(events);
            d.onerror = () => reject(d.error);
          };
          if (when === 'start') {
            // Keep the write's transaction busy until this connection has
            // been told to close, so the versionchange is seen while the
            // write is in flight whatever the backend's timing.
            let told = false;
            this.addEventListener('versionchange', () => { told = true; });
            const images = tx.objectStore('images');
            const busy = () => { if (!told) images.count().onsuccess = busy; };
            busy();
            remove();
          } else tx.addEventListener('complete', remove);
        }
        return tx;
      };
    });
    const attempt = async (when) => {
      const name = `midway-${when}-${Math.random().toString(36).slice(2)}`;
      const stash = await Stash.open({ name });
      // Warm the metadata listing so the compaction goes straight to its write.
      await compactContext([{ role: 'user', content: 'hi' }], { stash });
      const deleted = deleteDuringWrite(name, when);
      const { messages: result, report } = await compactContext(messages, { stash });
      const events = await deleted;
      const next = await compactContext(messages, { stash });
      stash.close();
      await new Promise((r) => { const d = indexedDB.deleteDatabase(name); d.onsuccess = d.onerror = r; });
      return { events, unchanged: JSON.stringify(result) === JSON.stringify(messages), placeholder: /\[Picture:history_[0-9a-f]{32}\]/.test(JSON.stringify(result)), report, next: next.report };
    };
    return { start: await attempt('start'), committed: await attempt('committed') };
  }, { png });

  // Deleted as the write began (its transaction held open until the
  // connection was told to close): the versionchange comes while the write
  // is in flight, so nothing is replaced.
  const during = out.start;
  assert.ok(during.events.indexOf('versionchange') >= 0 && during.events.indexOf('versionchange') < during.events.indexOf('complete'), `versionchange during the write: ${during.events}`);
  assert.ok(during.unchanged, 'nothing replaced while the database was going away');
  assert.ok(!during.placeholder);
  assert.equal(during.report.failed, 1);
  assert.equal(during.report.failures.find((f) => f.path).code, 'VERSION_CHANGE');
  assert.equal(during.next.stashed, 1, 'the next call works');

  // Deleted once the write had committed: replaced, and only then; the
  // next call finds the record gone with the database and writes it again.
  const after = out.committed;
  assert.deepEqual(after.events.slice(0, 2), ['complete', 'versionchange']);
  assert.equal(after.report.failed, 0);
  assert.equal(after.report.written, 1);
  assert.ok(after.placeholder && !after.unchanged);
  assert.equal(after.next.stashed, 1, 'the next call works');
});
