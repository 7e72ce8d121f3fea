// `ctxpack --version` and `-v`: the version of the package the command
// belongs to, as its package.json says, run as a user runs it.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../../scripts/serve.mjs';

const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const bin = path.join(ROOT, pkg.bin.ctxpack);
const run = (args) => spawnSync(process.execPath, [bin, ...args], { cwd: os.tmpdir(), encoding: 'utf8' });

test('--version and -v print the package.json version on stdout and exit 0', () => {
  assert.match(pkg.version, /^\d+\.\d+\.\d+/);
  for (const flag of ['--version', '-v']) {
    const r = run([flag]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, `${pkg.version}\n`, flag);
    assert.equal(r.stderr, '', flag);
  }
});

test('the usage names --version; with anything after it, it is a usage error', () => {
  assert.match(run(['--help']).stdout, /ctxpack --version, -v +the package's version\n/);
  const r = run(['--version', 'extra']);
  assert.equal(r.status, 1);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^ctxpack: unknown command "--version"\n/);
});
