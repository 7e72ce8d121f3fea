// `npm pack`, install the tarball into an empty project, and use it the ways
// apps do: require, import, ctxpack/node, the web build's files, and the bin.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync, existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../../scripts/serve.mjs';

let dir;
let tarball;
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

before(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ctxpack-pack-'));
  const out = execFileSync(npm, ['pack', '--json', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const [info] = JSON.parse(out);
  tarball = { path: path.join(dir, info.filename), files: info.files.map((f) => f.path), size: info.size };
  const app = path.join(dir, 'app');
  execFileSync('mkdir', ['-p', app]);
  writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }));
  execFileSync(npm, ['install', '--no-audit', '--no-fund', '--offline', tarball.path], { cwd: app, stdio: ['ignore', 'pipe', 'pipe'] });
});

after(() => rmSync(dir, { recursive: true, force: true }));

test('the tarball holds the builds, the bin, the README and the license — no sources', () => {
  for (const f of ['dist/web/ctxpack.js', 'dist/web/ctxpack_bg.wasm', 'dist/bundler/ctxpack.js', 'dist/node/ctxpack.js', 'dist/node/index.mjs', 'dist/node/file-stash.js', 'bin/ctxpack.cjs', 'README.md', 'LICENSE', 'package.json']) {
    assert.ok(tarball.files.includes(f), f);
  }
  assert.ok(!tarball.files.some((f) => f.startsWith('src/') || f.startsWith('tests/') || f.startsWith('target/')));
});

test('an empty project requires, imports and runs it', () => {
  const app = path.join(dir, 'app');
  writeFileSync(path.join(app, 'cjs.cjs'), `
    const { parseMarkdownImages, Stash, compactContext } = require('ctxpack');
    const { fileStash } = require('ctxpack/node');
    (async () => {
      const stash = await Stash.open({ backend: fileStash(__dirname + '/stash') });
      const msgs = [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/gif;base64,R0lGODlhAQABAAAAACw=' } }] }, { role: 'user', content: 'x' }];
      const { report } = await compactContext(msgs, { stash });
      console.log(parseMarkdownImages('![a](b.png)')[0].url, report.stashed);
    })();
  `);
  writeFileSync(path.join(app, 'esm.mjs'), `
    import { toMultimodal, CtxpackError } from 'ctxpack';
    import { fileStash } from 'ctxpack/node';
    const { content } = await toMultimodal('hi ![x](data:image/gif;base64,R0lGODlhAQABAAAAACw=)');
    console.log(content.length, typeof fileStash, CtxpackError.name);
  `);
  assert.equal(execFileSync(process.execPath, ['cjs.cjs'], { cwd: app, encoding: 'utf8' }).trim(), 'b.png 1');
  assert.equal(execFileSync(process.execPath, ['esm.mjs'], { cwd: app, encoding: 'utf8' }).trim(), '2 function CtxpackError');
  const web = path.join(app, 'node_modules/ctxpack/dist/web');
  assert.ok(existsSync(path.join(web, 'ctxpack_bg.wasm')));
  assert.match(readFileSync(path.join(web, 'ctxpack.js'), 'utf8'), /__wbg_init as default/);
  const bin = spawnSync(path.join(app, 'node_modules/.bin/ctxpack'), ['--help'], { encoding: 'utf8' });
  assert.equal(bin.status, 0);
  assert.match(bin.stdout, /ctxpack compact/);
});
