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
    const mod = await import('/dist/web/ctxpack.js');
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
