// The bundler build through real bundlers with only their usual wasm
// support: webpack 5 (`experiments.asyncWebAssembly`) and Vite
// (`vite-plugin-wasm`), each bundle run in headless Chromium.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync, readFileSync, copyFileSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import webpack from 'webpack';
import { build as viteBuild } from 'vite';
import wasm from 'vite-plugin-wasm';
import { serve, ROOT } from '../../scripts/serve.mjs';
import { launch } from './support/browser.mjs';

const entry = path.join(ROOT, 'tests/bundlers/entry.js');
const png = readFileSync(path.join(ROOT, 'tests/fixtures/chart.png')).toString('base64');
let browser;
const dirs = [];

before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function runInPage(dir, script) {
  writeFileSync(path.join(dir, 'index.html'), `<!doctype html><meta charset="utf-8"><script type="module" src="${script}"></script>`);
  const server = await serve({ root: dir });
  const page = await browser.newPage();
  try {
    await page.goto(`${server.url}/index.html`);
    await page.waitForFunction(() => window.bundledReady === true, null, { timeout: 20000 });
    return await page.evaluate((u) => window.bundledRun(u), `data:image/png;base64,${png}`);
  } finally {
    await page.close();
    await server.close();
  }
}

const expected = { url: 'b.png', parts: ['text', 'image_url'], stashed: 1 };

/** An app directory whose node_modules/ctxpack is this package, resolved through its exports map. */
function app(prefix) {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  mkdirSync(path.join(dir, 'node_modules'));
  symlinkSync(ROOT, path.join(dir, 'node_modules/ctxpack'), 'dir');
  mkdirSync(path.join(dir, 'src'));
  copyFileSync(entry, path.join(dir, 'src/entry.js'));
  mkdirSync(path.join(dir, 'out'));
  return dir;
}

test('webpack 5 with asyncWebAssembly', async () => {
  const dir = app('ctxpack-webpack-');
  const stats = await new Promise((resolve, reject) =>
    webpack({
      mode: 'production',
      context: dir,
      entry: './src/entry.js',
      output: { path: path.join(dir, 'out'), filename: 'main.js', module: true, chunkFormat: 'module' },
      experiments: { asyncWebAssembly: true, outputModule: true },
      performance: { hints: false },
    }, (err, s) => (err ? reject(err) : resolve(s))),
  );
  assert.ok(!stats.hasErrors(), stats.toString('errors-only'));
  assert.deepEqual(await runInPage(path.join(dir, 'out'), './main.js'), expected);
});

test('Vite with vite-plugin-wasm', async () => {
  const dir = app('ctxpack-vite-');
  await viteBuild({
    root: dir,
    logLevel: 'silent',
    configFile: false,
    plugins: [wasm()],
    build: { outDir: path.join(dir, 'out'), emptyOutDir: true, target: 'esnext', minify: false, lib: { entry: path.join(dir, 'src/entry.js'), formats: ['es'], fileName: () => 'main.js' } },
  });
  assert.deepEqual(await runInPage(path.join(dir, 'out'), './main.js'), expected);
});
