// The nodejs build, loaded the way an app loads it: `import` and `require`
// of the package by name, images made by libvips, a real HTTP server for fetch.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import http from 'node:http';
import * as esm from 'ctxpack';
import { makeImage } from '../fixtures/make.mjs';

const require = createRequire(import.meta.url);
const cjs = require('ctxpack');

const b64 = (buf) => Buffer.from(buf).toString('base64');

test('import and require load the same API', () => {
  for (const name of ['parseMarkdownImages', 'toMultimodal', 'detectFormat', 'CtxpackError']) {
    assert.equal(typeof esm[name], 'function', `import: ${name}`);
    assert.equal(typeof cjs[name], 'function', `require: ${name}`);
  }
  assert.equal(esm.parseMarkdownImages, cjs.parseMarkdownImages, 'one module instance');
});

test('errors are CtxpackError instances with code and path', async () => {
  assert.throws(() => cjs.parseMarkdownImages(null), (e) => {
    assert.ok(e instanceof cjs.CtxpackError);
    assert.ok(e instanceof Error);
    assert.equal(e.name, 'CtxpackError');
    assert.equal(e.code, 'INVALID_ARGUMENT');
    assert.equal(e.path, 'text');
    assert.match(e.stack, /CtxpackError/);
    return true;
  });
  await assert.rejects(esm.toMultimodal('x', { format: 'xml' }), (e) => e instanceof esm.CtxpackError && e.code === 'INVALID_OPTION' && e.path === 'options.format');
  assert.throws(
    () => esm.detectFormat([{ role: 'user', content: 'a' }, ['human']]),
    (e) => e.code === 'INVALID_MESSAGE' && e.path === 'messages[1]',
  );
});

test('offsets are UTF-16 so JS can slice', () => {
  const text = '说明 👩‍💻 ![架构图](<docs/my arch.png> "v2") 和 `![not](code.png)`\n\n    ![nor](indented.png)\n![ref][r]\n\n[r]: https://x.test/r.png';
  const imgs = esm.parseMarkdownImages(text);
  assert.deepEqual(imgs.map((i) => i.url), ['docs/my arch.png', 'https://x.test/r.png']);
  for (const img of imgs) assert.equal(text.slice(img.start, img.end).startsWith('!['), true);
  assert.equal(text.slice(imgs[0].start, imgs[0].end), '![架构图](<docs/my arch.png> "v2")');
  assert.equal(imgs[0].title, 'v2');
  assert.equal(imgs[0].alt, '架构图');
});

test('every image format is typed from its bytes and kept in order', async () => {
  const images = {
    'a.png': await makeImage('png', 31, 17, 3),
    'b.jpg': await makeImage('jpeg', 40, 22, 4),
    'c.gif': await makeImage('gif', 12, 9, 5),
    'd.webp': await makeImage('webp', 20, 20, 6),
  };
  const text = '先 ![a](file:///w/a.png) 再 ![b](b.jpg) ![c](vscode-resource:/c.gif) ![d](./d.webp) 完';
  const seen = [];
  const { content, missing } = await esm.toMultimodal(text, {
    resolve: async (url) => {
      seen.push(url);
      const name = url.split('/').pop();
      return new Uint8Array(images[name]);
    },
    format: 'anthropic',
    keepAlt: false,
  });
  assert.deepEqual(seen, ['file:///w/a.png', 'b.jpg', 'vscode-resource:/c.gif', './d.webp']);
  assert.deepEqual(missing, []);
  const img = content.filter((p) => p.type === 'image');
  assert.deepEqual(img.map((p) => p.source.media_type), ['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
  assert.deepEqual(img.map((p) => p.source.data), Object.values(images).map(b64));
  const { images: infos } = await esm.toMultimodal(text, { resolve: async (url) => new Uint8Array(images[url.split('/').pop()]) });
  assert.deepEqual(infos.map((i) => [i.mime, i.width, i.height, i.bytes]), [
    ['image/png', 31, 17, images['a.png'].length],
    ['image/jpeg', 40, 22, images['b.jpg'].length],
    ['image/gif', 12, 9, images['c.gif'].length],
    ['image/webp', 20, 20, images['d.webp'].length],
  ]);
  assert.deepEqual(content.filter((p) => p.type === 'text').map((p) => p.text), ['先 ', ' 再 ', ' ', ' ', ' 完']);
});

test('http images go through fetch; failures stay as markdown in missing', async () => {
  const png = await makeImage('png', 8, 8, 9);
  const server = http.createServer((req, res) => {
    if (req.url === '/ok.png') res.writeHead(200, { 'content-type': 'image/png' }).end(png);
    else if (req.url === '/lying.bin') res.writeHead(200, { 'content-type': 'image/gif' }).end(png);
    else res.writeHead(404).end();
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${server.address().port}`;
  try {
    const text = `![ok](${base}/ok.png) ![lie](${base}/lying.bin) ![404](${base}/nope.png)`;
    const out = await cjs.toMultimodal(text, { detail: 'low' });
    const imgs = out.content.filter((p) => p.type === 'image_url');
    assert.equal(imgs.length, 2);
    assert.equal(imgs[0].image_url.url, `data:image/png;base64,${b64(png)}`);
    assert.equal(imgs[0].image_url.detail, 'low');
    assert.equal(imgs[1].image_url.url.startsWith('data:image/png;base64,'), true);
    assert.deepEqual(out.corrected, [{ url: `${base}/lying.bin`, declared: 'image/gif', actual: 'image/png' }]);
    assert.equal(out.missing.length, 1);
    assert.equal(out.missing[0].reason, 'HTTP 404');
    assert.equal(out.content.at(-1).text, ` ![404](${base}/nope.png)`);
  } finally {
    server.close();
  }
});

test('broken data URLs are reported, never passed on', async () => {
  const text = '![a](data:image/png;base64,iVBOR!!) ![b](data:text/html;base64,PGgxPmhpPC9oMT4=) ![c](data:image/png,raw)';
  const out = await esm.toMultimodal(text);
  assert.deepEqual(out.missing.map((m) => m.code), ['INVALID_DATA_URL', 'NOT_AN_IMAGE', 'INVALID_DATA_URL']);
  assert.deepEqual(out.content, [{ type: 'text', text }]);
});
