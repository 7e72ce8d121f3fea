// init() of the web build, as a page (or a bundled web extension, whose
// scripts have no URL to find the .wasm files next to) calls it: every
// module's file passed at once (`wasm`: a folder or a reader), and a load
// that failed leaving the next call free to succeed.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { serve } from '../../scripts/serve.mjs';
import { expectConsoleErrors, launch } from './support/browser.mjs';

let server;
let browser;

before(async () => {
  server = await serve({});
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** A fresh page with the web build imported, not initialised. */
async function freshPage() {
  const page = await browser.newPage();
  await page.goto(`${server.url}/tests/js/support/blank.html`);
  await page.evaluate(async () => {
    window.ctxpack = await import('/dist/web/index.js');
  });
  return page;
}

test('a failed init says what was missing and how to pass it, and the next init succeeds', async () => {
  // The files this test asks for on purpose, which the server has not.
  expectConsoleErrors(/\/nowhere\/[^:]*: Failed to load resource: the server responded with a status of 404 /);
  const page = await freshPage();
  const out = await page.evaluate(async () => {
    const { default: init, CtxpackError, parseMarkdownImages } = window.ctxpack;
    const failed = await init({ wasm: '/nowhere/' }).then(() => null, (e) => ({
      ctx: e instanceof CtxpackError, error: e instanceof Error, name: e.name, code: e.code, message: e.message,
    }));
    // The extras module alone missing: the same, then a good call.
    const markdownFailed = await init({ markdown: { module_or_path: '/nowhere/markdown.wasm' } }).then(() => null, (e) => e.code);
    await init();
    return { failed, markdownFailed, parsed: parseMarkdownImages('![a](b.png)').length };
  });
  assert.equal(out.failed.ctx, true);
  assert.equal(out.failed.error, true);
  assert.equal(out.failed.name, 'CtxpackError');
  assert.equal(out.failed.code, 'MODULE_LOAD_FAILED');
  assert.match(out.failed.message, /ctxpack's (main|markdown) module/);
  assert.match(out.failed.message, /init\(\{ wasm \}\)/);
  assert.equal(out.markdownFailed, 'MODULE_LOAD_FAILED');
  assert.equal(out.parsed, 1);
  await page.close();
});

test('init({ wasm: read }) loads every module through the reader: main and markdown at once, the codec on first use', async () => {
  const page = await freshPage();
  const out = await page.evaluate(async () => {
    const { default: init, parseMarkdownImages, initCodecModule } = window.ctxpack;
    const read = [];
    const wasm = async (file) => {
      read.push(file);
      return new Uint8Array(await (await fetch(`/dist/wasm/${file}`)).arrayBuffer());
    };
    await init({ wasm });
    const afterInit = [...read].sort();
    const parsed = parseMarkdownImages('x ![a](b.png)').length;
    const codec = await initCodecModule();
    return { afterInit, parsed, all: [...read].sort(), codec: typeof codec.transcodeImage };
  });
  assert.deepEqual(out.afterInit, ['ctxpack_bg.wasm', 'extras/ctxpack_extras_bg.wasm']);
  assert.equal(out.parsed, 1);
  assert.deepEqual(out.all, ['codec/ctxpack_codec_bg.wasm', 'ctxpack_bg.wasm', 'extras/ctxpack_extras_bg.wasm']);
  assert.equal(out.codec, 'function');
  await page.close();
});

test('init({ wasm: folder }) loads the modules from that folder', async () => {
  const page = await freshPage();
  const out = await page.evaluate(async () => {
    const { default: init, parseMarkdownImages } = window.ctxpack;
    await init({ wasm: new URL('/dist/wasm/', location.href) });
    return parseMarkdownImages('![a](b.png) ![c](d.png)').length;
  });
  assert.equal(out, 2);
  await page.close();
});
