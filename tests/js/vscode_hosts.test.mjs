// The example extension (examples/vscode-extension) inside VS Code's own
// extension hosts: code-server 4.117 (VS Code 1.117), its workbench in
// headless Chromium, the example's integration tests run by the host (see
// support/code_server.mjs). The example is installed as an app installs
// ctxpack: the tarball `npm pack` makes of this checkout, unpacked into its
// node_modules, and its web build bundled by its own build script. Each host
// runs the tests twice: in a window, then in the window opened again (a new
// host on the same storage). Where code-server is not installed (plain `node
// --test` where setup has not run) the tests are skipped; under `npm test`
// they are required.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { installed, launchWorkbenchBrowser, runExtensionTests, startCodeServer } from './support/code_server.mjs';

const root = path.resolve(import.meta.dirname, '../..');
const required = process.env.CTXPACK_NPM_TEST === '1';
const skip = installed() || required ? false : 'code-server is not installed (scripts/setup.sh --test installs it)';
const ID = 'ctxpack.ctxpack-chat';

/** The example's copy, with ctxpack installed and the web build made. */
let example;
const tmp = [];

/** Runs `cmd` in `cwd`, failing with its output. */
function run(cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8' });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')} failed:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

before(() => {
  if (skip) return;
  // Inside the checkout, so its build script finds webpack in the project's packages.
  example = path.join(root, 'test-results/vscode-extension');
  rmSync(example, { recursive: true, force: true });
  cpSync(path.join(root, 'examples/vscode-extension'), example, { recursive: true, filter: (src) => !/[/\\](node_modules|dist)$/.test(src) });
  const packed = mkdtempSync(path.join(os.tmpdir(), 'ctxpack-vscode-pack-'));
  tmp.push(packed);
  // dist/ is built: the tarball is what `npm pack` would publish.
  run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', packed], root);
  const [tarball] = readdirSync(packed).filter((f) => f.endsWith('.tgz'));
  mkdirSync(path.join(example, 'node_modules/ctxpack'), { recursive: true });
  run('tar', ['-xzf', path.join(packed, tarball), '-C', path.join(example, 'node_modules/ctxpack'), '--strip-components=1'], root);
  run(process.execPath, ['build.mjs'], example);
});
after(() => {
  for (const d of tmp) rmSync(d, { recursive: true, force: true });
});

/** A workspace folder holding chart.png. */
function workspace() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ctxpack-vscode-workspace-'));
  tmp.push(dir);
  cpSync(path.join(root, 'tests/fixtures/chart.png'), path.join(dir, 'chart.png'));
  return dir;
}

/**
 * Runs `tests` (the first window's tests module, then the reopened
 * window's) inside the extension host that `settings` choose, each to exit 0.
 */
async function inHost(settings, tests) {
  const server = await startCodeServer({ settings });
  const browser = await launchWorkbenchBrowser();
  try {
    const folder = workspace();
    for (const module of tests) {
      const { code, console } = await runExtensionTests(server, browser, { folder, extension: example, tests: path.join(example, module) });
      assert.equal(code, 0, `${module} in the extension host exited with ${code}:\n${console.join('\n').slice(-8000)}\n--- code-server ---\n${server.log().slice(-4000)}`);
    }
  } finally {
    await browser.close();
    await server.close();
  }
}

test('the example extension in the Node extension host: workspace images, the file stash under globalStorageUri, the answer, again after a reload, require and import', { skip, timeout: 300_000 }, async () => {
  await inHost({}, ['test/node.js', 'test/reload.node.js']);
});

// The workbench runs an extension with a `browser` entry in its web worker
// host when the user's settings say so (remote.extensionKind), as VS Code
// for the Web does every extension.
test('the example extension in the web worker extension host: bundled, its wasm read from its own files, IndexedDB, the answer, again after a reload', { skip, timeout: 300_000 }, async () => {
  await inHost({ 'remote.extensionKind': { [ID]: ['web'] } }, ['dist/test/web.js', 'dist/test/reload.web.js']);
});
