// The size budget of the main module: the release web build's wasm, after
// wasm-bindgen and wasm-opt, gzipped at level 9, must stay within 300 KB,
// and keep 15 KB of that free for what comes next (285 KB). What a page's
// first compaction does not need lives in the modules loaded on first use
// (extras, full, codec), whose sizes are printed beside it.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const BUDGET_GZIP = 300 * 1000;
const HEADROOM = 15 * 1000;

const gzipped = (file) => {
  const wasm = readFileSync(new URL(`../../dist/wasm/${file}`, import.meta.url));
  return { raw: wasm.length, gzip: gzipSync(wasm, { level: 9 }).length };
};

test('the main wasm module is within 300 KB gzipped, with 15 KB of it to spare', () => {
  const main = gzipped('ctxpack_bg.wasm');
  for (const [name, file] of [['main', 'ctxpack_bg.wasm'], ['extras', 'extras/ctxpack_extras_bg.wasm'], ['full', 'full/ctxpack_full_bg.wasm']]) {
    const { raw, gzip } = name === 'main' ? main : gzipped(file);
    console.log(`# ${name} module: ${(raw / 1000).toFixed(1)} KB raw, ${(gzip / 1000).toFixed(1)} KB gzipped`);
  }
  assert.ok(main.gzip <= BUDGET_GZIP, `${main.gzip} bytes gzipped is over the ${BUDGET_GZIP}-byte budget`);
  assert.ok(main.gzip <= BUDGET_GZIP - HEADROOM, `${main.gzip} bytes gzipped leaves less than ${HEADROOM} bytes of the budget free`);
});
