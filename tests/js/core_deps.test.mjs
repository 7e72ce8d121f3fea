// The core crate is sans-IO: nothing of JavaScript or WebAssembly anywhere
// in its dependency tree (normal, build or dev), so it builds and tests with
// plain cargo on any target.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

test('ctxpack-core depends on no wasm-bindgen, js-sys or web-sys', () => {
  const tree = execFileSync('cargo', ['tree', '-p', 'ctxpack-core', '--edges', 'normal,build,dev', '--prefix', 'none'], {
    cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'],
  });
  const crates = new Set(tree.split('\n').map((l) => l.split(' ')[0]).filter(Boolean));
  assert.ok(crates.has('ctxpack-core'), 'cargo tree listed the core');
  for (const forbidden of ['wasm-bindgen', 'js-sys', 'web-sys', 'wasm-bindgen-futures', 'serde-wasm-bindgen']) {
    assert.ok(!crates.has(forbidden), `${forbidden} is in the core's tree`);
  }
});
