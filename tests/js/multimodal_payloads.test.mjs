// toMultimodal on text that carries long data-URL payloads: they stay in
// JavaScript while the markdown is read (the parts carry the caller's own
// payload text), and every byte of text around them comes back as written.
import test from 'node:test';
import assert from 'node:assert/strict';
import { toMultimodal } from 'ctxpack';
import { makeImage } from '../fixtures/make.mjs';

const b64Of = async (seed, format = 'png', w = 160) => (await makeImage(format, w, 120, seed)).toString('base64');

test('long payloads become parts with their exact text, and text around them is kept as written', async () => {
  const [a, b] = [await b64Of(501), await b64Of(502, 'jpeg')];
  assert.ok(a.length > 4096 && b.length > 4096);
  const text = `First *look*:\n\n![one](data:image/png;base64,${a} "the title")\n\nthen \`data:image/png;base64,${b}\` in code, a [link](data:image/jpeg;base64,${b}) and\n\n![two](DATA:image/jpeg;BASE64,${b})\n\nend.`;
  const out = await toMultimodal(text, { format: 'anthropic' });
  assert.deepEqual(out.missing, []);
  const images = out.content.filter((p) => p.type === 'image');
  assert.deepEqual(images.map((p) => p.source.data), [a, b]);
  assert.deepEqual(images.map((p) => p.source.media_type), ['image/png', 'image/jpeg']);
  const texts = out.content.filter((p) => p.type === 'text').map((p) => p.text);
  // The code span and the link keep their payloads verbatim.
  assert.ok(texts.some((t) => t.includes(`\`data:image/png;base64,${b}\``)));
  assert.ok(texts.some((t) => t.includes(`[link](data:image/jpeg;base64,${b})`)));
  assert.ok(texts[0].startsWith('First *look*:'));
  assert.ok(texts.at(-1).endsWith('end.'));
  assert.deepEqual(out.images.map((i) => [i.width, i.height]), [[160, 120], [160, 120]]);
});

test('an invalid long payload stays in the text as written and is listed as missing', async () => {
  const a = await b64Of(511);
  const broken = `${a.slice(0, 2000)}*${a.slice(2001)}`;
  const bad = `${a.slice(0, 3000)}=${a.slice(3001)}`;
  const text = `x ![bad](data:image/png;base64,${bad}) y ![star](data:image/png;base64,${broken}) z`;
  const out = await toMultimodal(text);
  assert.equal(out.content.filter((p) => p.type === 'image_url').length, 0);
  assert.deepEqual(out.missing.map((m) => m.code), ['INVALID_DATA_URL', 'INVALID_DATA_URL']);
  assert.deepEqual(out.missing.map((m) => m.reason), ["data: URL payload is not valid base64: misplaced '=' padding", 'data: URL payload is not valid base64: invalid byte at offset 2000']);
  // Offsets are in the caller's text.
  assert.deepEqual(out.missing.map((m) => text.slice(m.start, m.end)), [`![bad](data:image/png;base64,${bad})`, `![star](data:image/png;base64,${broken})`]);
  const all = out.content.map((p) => p.text).join('');
  assert.ok(all.includes(`![bad](data:image/png;base64,${bad})`));
  assert.ok(all.includes(`![star](data:image/png;base64,${broken})`));
});

test('text that looks like the internal tokens stays text', async () => {
  const a = await b64Of(521);
  for (const lookalike of ['ctxpack0i0e', 'ctxpack123456789i0e', `ctxpack${'9'.repeat(12)}i1e`]) {
    const text = `${lookalike} ![i](data:image/png;base64,${a}) ${lookalike} data:image/png;base64,${lookalike}`;
    const out = await toMultimodal(text);
    assert.equal(out.content[0].text, `${lookalike} [i]`);
    assert.equal(out.content[1].image_url.url, `data:image/png;base64,${a}`);
    assert.equal(out.content[2].text, ` ${lookalike} data:image/png;base64,${lookalike}`);
  }
});
