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
    const mod = await import('/dist/web/index.js');
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

test('in a page, the refusal readers answer from the extras module and repairContext uses them', async () => {
  const out = await page.evaluate(async () => {
    const { parseProviderError, parseContextLengthError, repairContext, CtxpackError } = window.ctxpack;
    const error = { message: 'Too many images in request. Max is 10.' };
    const messages = [{ role: 'user', content: 'hello' }];
    const { refusal, report } = await repairContext(messages, error, { model: 'gpt-4o' });
    const rejected = await repairContext(messages, 'socket hang up', { model: 'gpt-4o' }).then(() => null, (e) => ({ ctx: e instanceof CtxpackError, code: e.code }));
    return { read: parseProviderError(error), refusal, fits: report.fits, rejected, context: parseContextLengthError('nothing') };
  });
  assert.deepEqual(out.read, { kind: 'too-many-images', provider: 'openai', limit: 10 });
  assert.deepEqual(out.refusal, out.read);
  assert.equal(out.fits, true);
  assert.deepEqual(out.rejected, { ctx: true, code: 'NOT_A_REFUSAL' });
  assert.equal(out.context, null);
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

test('in a page, long payloads are checked in wasm: any non-base64 character, ASCII or not, is refused', async () => {
  const png = (await makeImage('png', 64, 64, 5)).toString('base64');
  const out = await page.evaluate(async (png) => {
    const { Stash, compactContext } = window.ctxpack;
    const at = (s, i, c) => s.slice(0, i) + c + s.slice(i + 1);
    const bad = [at(png, 1200, '*'), at(png, 1200, 'é'), at(png, 1200, '\u0100'), at(png, 1200, '😀'), at(png, 1200, '-')];
    const img = (b64) => ({ type: 'image_url', image_url: { url: `data:image/png;base64,${b64}` } });
    const stash = await Stash.open({ backend: 'memory' });
    const messages = [{ role: 'user', content: [...bad.map(img), img(png)] }, { role: 'user', content: 'next' }];
    const { messages: m, report } = await compactContext(messages, { stash });
    const kept = bad.every((b, i) => m[0].content[i].image_url.url === `data:image/png;base64,${b}`);
    return { codes: report.failures.map((f) => f.code), kept, last: m[0].content[bad.length].text, ids: (await stash.list()).map((e) => e.id) };
  }, png);
  const { createHash } = await import('node:crypto');
  const md5 = createHash('md5').update(png).digest('hex');
  assert.equal(png.length > 2048, true);
  assert.deepEqual(out.codes, Array(5).fill('INVALID_DATA_URL'));
  assert.equal(out.kept, true, 'refused payloads stay inline, unchanged');
  assert.equal(out.last, `[Picture:history_${md5}]`);
  assert.deepEqual(out.ids, [md5]);
});

test('bytes in the page: stashed in IndexedDB as their image, restored as the same kind of value (native and fallback codecs)', async () => {
  const png = (await makeImage('png', 24, 18, 81)).toString('base64');
  const result = await page.evaluate(async (b64) => {
    const { Stash, compactContext, expandContext } = window.ctxpack;
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const run = async () => {
      const stash = await Stash.open({ name: `bytes-${crypto.randomUUID()}` });
      const messages = [
        { role: 'user', content: [{ type: 'file', data: bytes, mediaType: 'image/png' }, { type: 'image', image: bytes.buffer.slice(0), mediaType: 'image/png' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
        { role: 'user', content: [{ type: 'text', text: 'again' }] },
      ];
      const { messages: compacted, report } = await compactContext(messages, { stash });
      const { messages: expanded } = await expandContext(compacted, { stash });
      const [a, b] = expanded[0].content;
      const same = (x) => x.length === bytes.length && x.every((v, i) => v === bytes[i]);
      const out = {
        stashed: report.stashed,
        text: compacted[0].content[0].text,
        u8: a.data instanceof Uint8Array && same(a.data),
        ab: b.image instanceof ArrayBuffer && same(new Uint8Array(b.image)),
      };
      await stash.clear();
      return out;
    };
    const native = await run();
    // Without the engine's base64 methods the module's own codec is used.
    const { toBase64 } = Uint8Array.prototype;
    const { fromBase64 } = Uint8Array;
    delete Uint8Array.prototype.toBase64;
    delete Uint8Array.fromBase64;
    try {
      return { native, fallback: await run(), hadNative: typeof toBase64 === 'function' };
    } finally {
      Uint8Array.prototype.toBase64 = toBase64;
      Uint8Array.fromBase64 = fromBase64;
    }
  }, png);
  const { createHash } = await import('node:crypto');
  const id = createHash('md5').update(png).digest('hex');
  for (const r of [result.native, result.fallback]) {
    assert.deepEqual(r, { stashed: 2, text: `[Picture:history_${id}]`, u8: true, ab: true });
  }
  assert.ok(result.hadNative, 'this Chromium has Uint8Array.prototype.toBase64');
});

test('in a page, a computer-use screenshot the model answered goes as a picture of its placeholder, drawn by the extras module, and comes back', async () => {
  const shots = await Promise.all([0, 1, 2].map(async (n) => (await makeImage('png', 24, 16, 40 + n)).toString('base64')));
  const out = await page.evaluate(async (shots) => {
    const { Stash, compactContext, expandContext } = window.ctxpack;
    const stash = await Stash.open({ backend: 'memory' });
    const loop = [{ role: 'user', content: 'Click through the page.' }];
    shots.forEach((shot, n) => {
      loop.push({ type: 'computer_call', call_id: `c${n}`, action: { type: 'screenshot' }, pending_safety_checks: [], status: 'completed' });
      loop.push({ type: 'computer_call_output', call_id: `c${n}`, output: { type: 'computer_screenshot', image_url: `data:image/png;base64,${shot}` } });
    });
    const { messages } = await compactContext(loop, { stash, format: 'openai-responses', keepRecentImages: 0, slack: false });
    const back = await expandContext(messages, { stash, format: 'openai-responses' });
    return { urls: messages.filter((m) => m.type === 'computer_call_output').map((m) => m.output.image_url), back: JSON.stringify(back.messages) === JSON.stringify(loop) };
  }, shots);
  // The two answered screenshots are pictures (PNGs of the placeholder), the newest is whole.
  assert.equal(out.urls.length, 3);
  for (const url of out.urls.slice(0, 2)) {
    assert.match(url, /^data:image\/png;base64,iVBOR/);
    assert.ok(url.length < 1024, `${url.length}`);
    assert.ok(!shots.some((s) => url.includes(s)));
  }
  assert.equal(out.urls[2], `data:image/png;base64,${shots[2]}`);
  assert.equal(out.back, true);
});
