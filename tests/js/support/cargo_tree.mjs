// `cargo tree` for the module tests: which crates a wasm module is built from.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { ROOT } from '../../../scripts/serve.mjs';

/** `pkg`'s normal dependencies on wasm32, one crate a line; cargo must
 * succeed and list `pkg` itself, so a cargo that fails cannot pass for a
 * tree without the crates looked for. */
export function cargoTree(pkg) {
  const r = spawnSync('cargo', ['tree', '-p', pkg, '--target', 'wasm32-unknown-unknown', '-e', 'normal', '--prefix', 'none'], { cwd: ROOT, encoding: 'utf8' });
  assert.ifError(r.error);
  assert.equal(r.status, 0, `cargo tree -p ${pkg} failed: ${r.stderr}`);
  assert.match(r.stdout, new RegExp(`^${pkg} v`, 'm'), `cargo tree -p ${pkg} did not list ${pkg}: ${r.stdout}${r.stderr}`);
  return r.stdout;
}
