// The CommonMark parser is a wasm module of its own: the main module has none
// of it, and Node loads it only when markdown is first needed.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../../scripts/serve.mjs';
import { cargoTree } from './support/cargo_tree.mjs';


test('the main wasm crate does not depend on pulldown-cmark; the extras crate does', () => {
  assert.doesNotMatch(cargoTree('ctxpack'), /pulldown-cmark/);
  assert.match(cargoTree('ctxpack-extras'), /pulldown-cmark/);
  const sizes = JSON.parse(readFileSync(path.join(ROOT, 'dist/sizes.json'), 'utf8'));
  console.log(`main module ${sizes.gzip} B gzipped; extras module ${sizes.extras.gzip} B gzipped`);
  assert.ok(sizes.extras.gzip > 0);
});

test('Node loads the extras module on first use only, not for a compaction; toTextOnly, hasMultimedia and parseMarkdownImages live there', () => {
  const script = `(async () => {
    const c = require(${JSON.stringify(path.join(ROOT, 'dist/node/index.js'))});
    const before = c.__extrasLoaded();
    const messages = [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x.test/a.png' } }] }];
    const compacted = await c.compactContext(messages, { stash: await c.Stash.open({ backend: 'memory' }) });
    const still = c.__extrasLoaded();
    const parts = c.hasMultimedia(messages);
    const found = c.parseMarkdownImages('see ![a](b.png) and \`![c](d.png)\`');
    const text = c.toTextOnly(messages);
    console.log(JSON.stringify({ before, compacted: compacted.messages.length, still, parts, after: c.__extrasLoaded(), found, text, inMain: ['toTextOnly', '__hasMultimedia', '__parseMarkdownImages'].filter((n) => n in require(${JSON.stringify(path.join(ROOT, 'dist/node/ctxpack.js'))})) }));
  })();`;
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), {
    before: false,
    compacted: 1,
    still: false,
    parts: true,
    after: true,
    found: [{ alt: 'a', url: 'b.png', start: 4, end: 15 }],
    text: [{ role: 'user', content: '![图片1](https://x.test/a.png)' }],
    inMain: [],
  });
});

test('routeArtifact lives in the extras module: the main module has none of it, and its errors are the one CtxpackError', () => {
  const script = `
    const c = require(${JSON.stringify(path.join(ROOT, 'dist/node/index.js'))});
    const main = require(${JSON.stringify(path.join(ROOT, 'dist/node/ctxpack.js'))});
    const before = c.__extrasLoaded();
    const routed = c.routeArtifact({ id: 'r1', filename: 'report.pdf', text: 'x' }, { file: true }, { format: 'anthropic' });
    const errors = [];
    for (const args of [[{ filename: 'x' }, {}], [{ id: 'a', text: 't' }, {}, { lang: 'fr' }], [{ id: 'a', text: 't' }, {}, { format: 'nope' }], [7, {}]]) {
      try { c.routeArtifact(...args); errors.push(null); } catch (e) {
        errors.push({ cls: e instanceof c.CtxpackError && e instanceof Error, name: e.name, code: e.code, path: e.path });
      }
    }
    console.log(JSON.stringify({ before, after: c.__extrasLoaded(), inMain: 'routeArtifact' in main, id: routed.metadata.id, errors }));
  `;
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.before, false);
  assert.equal(out.after, true, 'the first routeArtifact loads the extras module');
  assert.equal(out.inMain, false, 'the main module exports no routeArtifact');
  assert.equal(out.id, 'r1');
  assert.deepEqual(out.errors, [
    { cls: true, name: 'CtxpackError', code: 'INVALID_ARGUMENT', path: 'artifact.id' },
    { cls: true, name: 'CtxpackError', code: 'INVALID_OPTION', path: 'options.lang' },
    { cls: true, name: 'CtxpackError', code: 'INVALID_OPTION', path: 'options.format' },
    { cls: true, name: 'CtxpackError', code: 'INVALID_ARGUMENT', path: 'artifact' },
  ]);
});

test('the refusal readers live in the extras module: repairContext reads the refusal there', async () => {
  const script = `
    const c = require(${JSON.stringify(path.join(ROOT, 'dist/node/index.js'))});
    const main = require(${JSON.stringify(path.join(ROOT, 'dist/node/ctxpack.js'))});
    (async () => {
      const before = c.__extrasLoaded();
      const messages = [{ role: 'user', content: 'word '.repeat(50) }];
      let notARefusal = null;
      try { await c.repairContext(messages, new Error('socket hang up'), { model: 'claude-sonnet-4-5' }); } catch (e) {
        notARefusal = { cls: e instanceof c.CtxpackError, code: e.code, path: e.path, cause: e.cause?.message };
      }
      const after = c.__extrasLoaded();
      const error = { message: 'error, status code: 400, message: Too many images in request. Max is 10.' };
      const { refusal } = await c.repairContext(messages, error, { model: 'gpt-4o' });
      console.log(JSON.stringify({
        before, after, notARefusal, refusal, read: c.parseProviderError(error),
        context: c.parseContextLengthError('prompt is too long: 213610 tokens > 199999 maximum'),
        inMain: ['parseProviderError', 'parseContextLengthError'].filter((n) => n in main),
      }));
    })();
  `;
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.before, false);
  assert.equal(out.after, true, 'repairContext loads the extras module to read the refusal');
  assert.deepEqual(out.notARefusal, { cls: true, code: 'NOT_A_REFUSAL', path: 'error', cause: 'socket hang up' });
  const read = { kind: 'too-many-images', provider: 'openai', limit: 10 };
  assert.deepEqual(out.refusal, read, 'the result carries the refusal as parseProviderError reads it');
  assert.deepEqual(out.read, read);
  assert.deepEqual(out.context, { requested: 213610, max: 199999, provider: 'anthropic' });
  assert.deepEqual(out.inMain, [], 'the main module exports neither');
});

test('a text whose parse would grow faster than the text is read up to a blank line: the images after it stay text', async () => {
  const c = (await import('node:module')).createRequire(import.meta.url)(path.join(ROOT, 'dist/node/index.js'));
  const png = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
  // 25,000 nested list items, an open fence, 50,000 blank lines: the list
  // closes before the last image, which CommonMark reads as an image.
  const deep = `${'- '.repeat(25_000)}\`\`\`\n${'\n'.repeat(50_000)}`;
  const text = `![first](${png})\n\n${deep}![last](${png})\n`;
  const found = c.parseMarkdownImages(text);
  assert.deepEqual(found.map((i) => i.alt), ['first']);
  assert.equal(text.slice(found[0].start, found[0].end), `![first](${png})`);
  const out = await c.toMultimodal(text, { keepAlt: false });
  assert.deepEqual(out.content.map((p) => p.type), ['image_url', 'text']);
  assert.equal(out.content[1].text, text.slice(found[0].end), 'the rest stays text, its image included');
  assert.deepEqual(out.missing, []);
  // The only image after the cut: no image, so no multimedia.
  const onlyLast = `${deep}![last](${png})\n`;
  assert.deepEqual(c.parseMarkdownImages(onlyLast), []);
  assert.equal(c.hasMultimedia([{ role: 'user', content: onlyLast }]), false);
  assert.equal(c.hasMultimedia([{ role: 'user', content: text }]), true);
  // With a few blank lines the whole text is read, and both are images.
  const short = `![first](${png})\n\n${'- '.repeat(25_000)}\`\`\`\n\n\n![last](${png})\n`;
  assert.deepEqual(c.parseMarkdownImages(short).map((i) => i.alt), ['first', 'last']);
});
