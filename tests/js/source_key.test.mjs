// The key under which the build keeps the modules cargo compiled
// (scripts/source-key.mjs), on fresh clones of this checkout's commit: the
// same sources give the same key wherever they are; a working tree that
// differs from its commit gives none; another commit, compiler setting or
// cargo configuration gives another; the target folder's place and an
// offline cargo change nothing.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../../scripts/serve.mjs';
import { sourceKey } from '../../scripts/source-key.mjs';

let dir;
let a;
let b;
// The caller's environment without what the tests set themselves.
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(CARGO_|RUSTC|RUSTFLAGS$|RUSTDOCFLAGS$|RUSTUP_TOOLCHAIN$)/.test(k) || k === 'CARGO_HOME'));
const git = (cwd, ...args) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });

before(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ctxpack-key-'));
  a = path.join(dir, 'a');
  b = path.join(dir, 'elsewhere', 'b');
  git(dir, 'clone', '--quiet', ROOT, a);
  git(dir, 'clone', '--quiet', ROOT, b);
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('the same commit gives the same key in two clones, whatever the target folder, online or offline', () => {
  const key = sourceKey(a, env);
  assert.match(key, /^[0-9a-f]{64}$/);
  assert.equal(sourceKey(b, env), key);
  assert.equal(sourceKey(b, { ...env, CARGO_TARGET_DIR: path.join(dir, 'target') }), key);
  assert.equal(sourceKey(b, { ...env, CARGO_NET_OFFLINE: 'true' }), key);
});

test('a working tree that differs from its commit has no key, until it is the commit again', () => {
  const key = sourceKey(a, env);
  const lib = path.join(a, 'core/src/lib.rs');
  const text = readFileSync(lib, 'utf8');
  appendFileSync(lib, '\n');
  assert.equal(sourceKey(a, env), null, 'a changed file');
  git(a, 'add', 'core/src/lib.rs');
  assert.equal(sourceKey(a, env), null, 'a staged change');
  git(a, 'reset', '--quiet');
  writeFileSync(lib, text);
  assert.equal(sourceKey(a, env), key);
  writeFileSync(path.join(a, 'core/src/new.rs'), '');
  assert.equal(sourceKey(a, env), null, 'an untracked file');
  unlinkSync(path.join(a, 'core/src/new.rs'));
  unlinkSync(path.join(a, 'Cargo.lock'));
  assert.equal(sourceKey(a, env), null, 'a deleted file');
  git(a, 'checkout', '--quiet', 'Cargo.lock');
  // Ignored files are not sources: a dist/ or a target/ inside the clone.
  mkdirSync(path.join(a, 'dist'));
  writeFileSync(path.join(a, 'dist/x.js'), '');
  assert.equal(sourceKey(a, env), key);
});

test('another commit, another compiler setting or another cargo configuration gives another key', () => {
  const key = sourceKey(b, env);
  const keys = new Set([key]);
  for (const extra of [{ RUSTFLAGS: '-Copt-level=1' }, { CARGO_PROFILE_RELEASE_OPT_LEVEL: '3' }, { CARGO_ENCODED_RUSTFLAGS: '-Ctarget-cpu=generic' }, { RUSTUP_TOOLCHAIN: 'stable' }]) {
    const k = sourceKey(b, { ...env, ...extra });
    // A toolchain rustup does not have gives no key (rustc does not answer).
    if (k !== null) keys.add(k);
  }
  assert.ok(keys.size >= 4, `${keys.size} distinct keys`);
  const home = path.join(dir, 'cargo-home');
  mkdirSync(home, { recursive: true });
  writeFileSync(path.join(home, 'config.toml'), '[build]\nrustflags = ["-Copt-level=2"]\n');
  const withConfig = sourceKey(b, { ...env, CARGO_HOME: home });
  assert.ok(withConfig !== null && !keys.has(withConfig));
  writeFileSync(path.join(b, 'README.md'), `${readFileSync(path.join(b, 'README.md'), 'utf8')}\nmore\n`);
  git(b, 'commit', '--quiet', '-am', 'another commit');
  const next = sourceKey(b, env);
  assert.ok(next !== null && next !== key);
});
