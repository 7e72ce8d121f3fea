// Every code example in the README runs: ```js blocks in Node (as ES modules,
// or CommonJS when they `require`), ```js browser blocks in a page.
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { serve, ROOT } from '../../scripts/serve.mjs';
import { launch } from './support/browser.mjs';

const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const blocks = [...readme.matchAll(/```js( browser)?\n([\s\S]*?)```/g)].map((m, i) => ({
  i,
  browser: !!m[1],
  code: m[2],
}));
const dir = path.join(ROOT, 'test-results', 'readme');
mkdirSync(dir, { recursive: true });

test('the README has Node and browser examples', () => {
  assert.ok(blocks.filter((b) => !b.browser).length >= 2);
  assert.ok(blocks.filter((b) => b.browser).length >= 1);
});

for (const block of blocks.filter((b) => !b.browser)) {
  test(`README example ${block.i + 1} runs in Node`, () => {
    const cjs = /\brequire\(/.test(block.code);
    const file = path.join(dir, `example-${block.i + 1}.${cjs ? 'cjs' : 'mjs'}`);
    writeFileSync(file, block.code);
    const r = spawnSync(process.execPath, [file], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr + r.stdout);
  });
}

let browser;
let server;
after(async () => {
  await browser?.close();
  await server?.close();
});

for (const block of blocks.filter((b) => b.browser)) {
  test(`README example ${block.i + 1} runs in a page`, async () => {
    server ??= await serve();
    browser ??= await launch();
    const page = await browser.newPage();
    await page.goto(`${server.url}/tests/js/support/blank.html`);
    const code = block.code.replaceAll("'ctxpack/web'", "'/dist/web/ctxpack.js'");
    const file = path.join(dir, `example-${block.i + 1}.mjs`);
    writeFileSync(file, code);
    const error = await page.evaluate(async (src) => {
      try {
        await import(src);
        return null;
      } catch (e) {
        return String(e?.stack ?? e);
      }
    }, `/test-results/readme/example-${block.i + 1}.mjs`);
    assert.equal(error, null);
  });
}
