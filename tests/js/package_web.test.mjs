// The web build loaded in a page in headless Chromium, as an app loads it:
// an ES module import plus the explicit async init.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { serve } from '../../scripts/serve.mjs';
import { launch } from './support/browser.mjs';
import { makeImage } from '../fixtures/make.mjs';

let server;
let browser;
let page;

before(async () => {
  const png = await makeImage('png', 16, 12, 7);
  server = await serve({
    routes: {
      '/img/served.png': (req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(png),
    },
  });
  browser = await launch();
  page = await browser.newPage();
  await page.goto(`${server.url}/tests/js/support/blank.html`);
  await page.evaluate(async () => {
    const mod = await import('/dist/web/ctxpack.js');
    await mod.default();
    window.ctxpack = mod;
  });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('the web build initialises and parses markdown', async () => {
  const imgs = await page.evaluate(() => window.ctxpack.parseMarkdownImages('😀 ![a](b.png) `![c](d.png)`'));
  assert.deepEqual(imgs, [{ alt: 'a', url: 'b.png', start: 3, end: 14 }]);
});

test('errors thrown in the page are CtxpackError instances', async () => {
  const e = await page.evaluate(() => {
    try {
      window.ctxpack.detectFormat([{ role: 'user', content: 5 }]);
      return null;
    } catch (err) {
      return {
        isCtx: err instanceof window.ctxpack.CtxpackError,
        isError: err instanceof Error,
        name: err.name,
        code: err.code,
        path: err.path,
      };
    }
  });
  assert.deepEqual(e, { isCtx: true, isError: true, name: 'CtxpackError', code: 'INVALID_MESSAGE', path: 'messages[0].content' });
});

test('toMultimodal fetches same-origin and blob images in the page', async () => {
  const out = await page.evaluate(async () => {
    const served = await (await fetch('/img/served.png')).arrayBuffer();
    const blobUrl = URL.createObjectURL(new Blob([served], { type: 'image/png' }));
    const text = `图 ![one](${location.origin}/img/served.png) 和 ![two](${blobUrl}) ![three](local.png)`;
    const res = await window.ctxpack.toMultimodal(text, { resolve: () => null });
    const bytes = new Uint8Array(served);
    let bin = '';
    for (const b of bytes) bin += String.fromCharCode(b);
    return { res, expected: `data:image/png;base64,${btoa(bin)}` };
  });
  const urls = out.res.content.filter((p) => p.type === 'image_url').map((p) => p.image_url.url);
  assert.deepEqual(urls, [out.expected, out.expected]);
  assert.deepEqual(out.res.missing.map((m) => m.url), ['local.png']);
});
