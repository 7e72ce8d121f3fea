// The .d.ts generated from the Rust is type-checked against a consumer that
// uses every exported function, and against misuse that must be rejected.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../../scripts/serve.mjs';

const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
const dir = path.join(ROOT, 'tests/ts');

function check(project) {
  const r = spawnSync(process.execPath, [tsc, '-p', project, '--pretty', 'false'], { encoding: 'utf8' });
  return { status: r.status, out: r.stdout + r.stderr };
}

test('the consumer type-checks against the generated declarations', () => {
  const { status, out } = check(path.join(dir, 'tsconfig.json'));
  assert.equal(status, 0, out);
});

test('an app using the adapters type-checks against them and the libraries\' own types', () => {
  const { status, out } = check(path.join(dir, 'tsconfig.adapters.json'));
  assert.equal(status, 0, out);
});

test('misuse is rejected on exactly the marked lines', () => {
  const cfg = path.join(dir, 'tsconfig.misuse.json');
  const base = JSON.parse(readFileSync(path.join(dir, 'tsconfig.json'), 'utf8'));
  writeFileSync(cfg, JSON.stringify({ ...base, files: ['misuse.ts'] }));
  try {
    const { status, out } = check(cfg);
    assert.notEqual(status, 0);
    const expected = readFileSync(path.join(dir, 'misuse.ts'), 'utf8')
      .split('\n')
      .flatMap((line, i) => (line.includes('@expect-error') ? [i + 1] : []));
    const reported = [...new Set([...out.matchAll(/misuse\.ts\((\d+),\d+\): error/g)].map((m) => Number(m[1])))];
    assert.deepEqual(reported.sort((a, b) => a - b), expected, out);
  } finally {
    rmSync(cfg, { force: true });
  }
});
