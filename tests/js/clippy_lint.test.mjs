// `npm test` lints the workspace while `cargo test` compiles it
// (scripts/clippy-lint.mjs): run on a crate of its own, a lint in the
// library or in an integration test fails the build, and clean code builds
// and its tests run.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { clippyWhileCompiling } from '../../scripts/clippy-lint.mjs';

const dir = mkdtempSync(path.join(os.tmpdir(), 'ctxpack-clippy-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

/** A crate with `lib` as its library and `tests` as its integration test,
 * tested under the lint environment; cargo's exit status and stderr. */
function cargoTest(lib, tests) {
  const crate = path.join(dir, 'probe');
  mkdirSync(path.join(crate, 'src'), { recursive: true });
  mkdirSync(path.join(crate, 'tests'), { recursive: true });
  writeFileSync(path.join(crate, 'Cargo.toml'), '[package]\nname = "probe"\nversion = "0.1.0"\nedition = "2021"\n\n[workspace]\n');
  writeFileSync(path.join(crate, 'src/lib.rs'), lib);
  writeFileSync(path.join(crate, 'tests/it.rs'), tests);
  const r = spawnSync('cargo', ['test', '--quiet'], {
    cwd: crate, encoding: 'utf8', env: { ...process.env, ...clippyWhileCompiling, CARGO_TARGET_DIR: path.join(dir, 'target') },
  });
  return { status: r.status, stderr: r.stderr, stdout: r.stdout };
}

const lib = '//! Probe.\n\n/// The length of a list of one.\npub fn one() -> usize {\n    [1].len()\n}\n';
const tests = '#[test]\nfn one() {\n    assert_eq!(probe::one(), 1);\n}\n';

test('clean code builds and its tests run', () => {
  const r = cargoTest(lib, tests);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /test result: ok\. 1 passed/);
});

test('a lint in the library fails the build', () => {
  const r = cargoTest(lib.replace('[1].len()', 'let v = vec![1];\n    v.len()'), tests);
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /useless use of `vec!`/);
  assert.match(r.stderr, /-D clippy::useless-vec` implied by `-D warnings`/);
});

test('a lint in an integration test fails the build', () => {
  const r = cargoTest(lib, tests.replace('    assert_eq!(probe::one(), 1);', '    let v = vec![1];\n    assert_eq!(probe::one(), v.len());'));
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /useless use of `vec!`/);
  assert.match(r.stderr, /tests\/it\.rs/);
});
