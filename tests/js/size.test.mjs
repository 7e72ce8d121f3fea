// The size budget of the main module: the release web build's wasm, after
// wasm-bindgen and wasm-opt, gzipped at level 9, must stay within 300 KB.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const BUDGET_GZIP = 300 * 1000;

test('the main wasm module is within 300 KB gzipped', () => {
  const wasm = readFileSync(new URL('../../dist/wasm/ctxpack_bg.wasm', import.meta.url));
  const gzip = gzipSync(wasm, { level: 9 }).length;
  console.log(`# main module: ${(wasm.length / 1000).toFixed(1)} KB raw, ${(gzip / 1000).toFixed(1)} KB gzipped`);
  assert.ok(gzip <= BUDGET_GZIP, `${gzip} bytes gzipped is over the ${BUDGET_GZIP}-byte budget`);
});
