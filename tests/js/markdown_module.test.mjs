// The CommonMark parser is a wasm module of its own: the main module has none
// of it, and Node loads it only when markdown is first needed.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../../scripts/serve.mjs';

test('the main wasm crate does not depend on pulldown-cmark; the markdown crate does', () => {
  const tree = (pkg) => spawnSync('cargo', ['tree', '-p', pkg, '--target', 'wasm32-unknown-unknown', '-e', 'normal', '--prefix', 'none'], { cwd: ROOT, encoding: 'utf8' }).stdout;
  assert.doesNotMatch(tree('ctxpack'), /pulldown-cmark/);
  assert.match(tree('ctxpack-markdown'), /pulldown-cmark/);
  const sizes = JSON.parse(readFileSync(path.join(ROOT, 'dist/sizes.json'), 'utf8'));
  console.log(`main module ${sizes.gzip} B gzipped; markdown module ${sizes.markdown.gzip} B gzipped`);
  assert.ok(sizes.markdown.gzip > 0);
});

test('Node loads the markdown module on first use only', () => {
  const script = `
    const c = require(${JSON.stringify(path.join(ROOT, 'dist/node/index.js'))});
    const before = c.__markdownLoaded();
    const messages = [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x.test/a.png' } }] }];
    const parts = c.hasMultimedia(messages);
    const still = c.__markdownLoaded();
    const found = c.parseMarkdownImages('see ![a](b.png) and \`![c](d.png)\`');
    console.log(JSON.stringify({ before, parts, still, after: c.__markdownLoaded(), found }));
  `;
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), {
    before: false,
    parts: true,
    still: false,
    after: true,
    found: [{ alt: 'a', url: 'b.png', start: 4, end: 15 }],
  });
});
