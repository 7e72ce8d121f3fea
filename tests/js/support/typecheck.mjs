// Type-checks TypeScript source under `tsc --strict` in a folder of its own
// inside the checkout (so the SDKs' types resolve from node_modules): what
// the SDKs' own types accept.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../../../scripts/serve.mjs';

/**
 * Asserts that `source` (one module, `check.ts`) type-checks under
 * `tsc --strict`; `prefix` names the temporary folder.
 */
export function assertTypeChecks(source, prefix = 'check-') {
  const dir = mkdtempSync(path.join(ROOT, 'tests/ts', prefix));
  try {
    writeFileSync(path.join(dir, 'check.ts'), source);
    const compilerOptions = {
      target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true, skipLibCheck: true, types: [], lib: ['es2022', 'dom'],
    };
    writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['check.ts'] }));
    const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
    const r = spawnSync(process.execPath, [tsc, '-p', dir, '--pretty', 'false'], { encoding: 'utf8' });
    assert.equal(r.status, 0, (r.stdout + r.stderr).slice(0, 4000));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
