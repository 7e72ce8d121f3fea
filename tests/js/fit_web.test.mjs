// fitContext in headless Chromium through the web build: in a page and in
// a module worker the default path is the browser's own (createImageBitmap
// + OffscreenCanvas), which fetches no codec; the codec module is fetched
// only when asked for. Originals go to IndexedDB (a fresh database per test).
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { serve } from '../../scripts/serve.mjs';
import { launch } from './support/browser.mjs';
import { makeImage, makeScreenshot } from '../fixtures/make.mjs';

let server;
let browser;
let page;
let shot;
let photo;

// The worker: fits the conversation it is sent and posts the report back.
const WORKER = `
import init, { fitContext, Stash } from '/dist/web/index.js';
onmessage = async ({ data }) => {
  await init();
  const stash = await Stash.open({ name: 'fit-worker-' + crypto.randomUUID() });
  const { report } = await fitContext(data, { model: 'claude-sonnet-4-5', stash });
  postMessage({ report, codec: performance.getEntriesByType('resource').some((r) => r.name.includes('ctxpack_codec')) });
};`;

before(async () => {
  shot = (await makeScreenshot(3000, 1900, 2)).toString('base64');
  photo = (await makeImage('jpeg', 4000, 3000, 5)).toString('base64');
  server = await serve({
    routes: { '/fit-worker.js': (req, res) => res.writeHead(200, { 'content-type': 'text/javascript' }).end(WORKER) },
  });
  browser = await launch();
  page = await browser.newPage();
  await page.goto(`${server.url}/tests/js/support/blank.html`);
  await page.evaluate(async () => {
    const mod = await import('/dist/web/index.js');
    await mod.default();
    window.ctxpack = mod;
  });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

const conversation = (shot, photo) => [
  { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: shot } }, { type: 'text', text: 'this screen' }] },
  { role: 'assistant', content: 'seen' },
  { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: photo } }, { type: 'text', text: 'and this photo' }] },
];

test('in a page: canvas resizing, originals in IndexedDB, no codec fetched', async () => {
  const out = await page.evaluate(async (messages) => {
    const { fitContext, Stash, getHistoryImage, estimate } = window.ctxpack;
    const stash = await Stash.open({ name: `fit-${crypto.randomUUID()}` });
    const { messages: fitted, report } = await fitContext(messages, { model: 'claude-sonnet-4-5', stash });
    const sizes = [];
    for (const m of fitted) {
      for (const p of Array.isArray(m.content) ? m.content : []) {
        if (p.type !== 'image') continue;
        const bitmap = await createImageBitmap(new Blob([Uint8Array.fromBase64 ? Uint8Array.fromBase64(p.source.data) : Uint8Array.from(atob(p.source.data), (c) => c.charCodeAt(0))]));
        sizes.push([bitmap.width, bitmap.height, p.source.media_type]);
      }
    }
    const [orig] = await getHistoryImage(stash, report.images[1].id, { format: 'anthropic' });
    return {
      report,
      sizes,
      exceeded: estimate(fitted, { model: 'claude-sonnet-4-5' }).exceeded,
      original: orig.source.data === messages[2].content[0].source.data,
      codec: performance.getEntriesByType('resource').some((r) => r.name.includes('ctxpack_codec')),
    };
  }, conversation(shot, photo));
  assert.equal(out.report.fits, true, String(out.report.problems));
  assert.deepEqual(out.exceeded, []);
  const photoFit = out.report.images[1];
  assert.equal(photoFit.action, 'downscaled');
  assert.deepEqual(out.sizes[1], [photoFit.after.width, photoFit.after.height, 'image/jpeg']);
  assert.ok(photoFit.after.width <= 1568 && photoFit.after.tokens === Math.ceil((photoFit.after.width * photoFit.after.height) / 750));
  assert.equal(photoFit.after.tokens, photoFit.before.tokens, 'the same tokens as the model would have counted');
  assert.ok(photoFit.after.bytes < photoFit.before.bytes);
  assert.equal(out.original, true, 'IndexedDB holds the 4000×3000 original');
  assert.equal(out.codec, false, 'the canvas did the work: no codec module fetched');
});

test('in a page: the codec module is fetched on first use when asked for, and gives the same sizes', async () => {
  const out = await page.evaluate(async (messages) => {
    const { fitContext, codecResize } = window.ctxpack;
    const { report } = await fitContext(messages, { model: 'gpt-4o', resize: codecResize });
    return { report, codec: performance.getEntriesByType('resource').some((r) => r.name.includes('ctxpack_codec')) };
  }, conversation(shot, photo));
  assert.equal(out.codec, true);
  assert.equal(out.report.fits, true);
  assert.deepEqual([out.report.images[1].after.width, out.report.images[1].after.height], [1024, 768]);
});

test('in a module worker: OffscreenCanvas does the resizing', async () => {
  const out = await page.evaluate(async (messages) => {
    const worker = new Worker('/fit-worker.js', { type: 'module' });
    const reply = await new Promise((resolve, reject) => {
      worker.onmessage = (e) => resolve(e.data);
      worker.onerror = (e) => reject(new Error(e.message));
      worker.postMessage(messages);
    });
    worker.terminate();
    return reply;
  }, conversation(shot, photo));
  assert.equal(out.report.fits, true);
  assert.equal(out.report.images[1].action, 'downscaled');
  assert.equal(out.codec, false);
});
