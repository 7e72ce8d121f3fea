// `npm run bench` runs whole: scripts/bench.mjs with BENCH_SMOKE=1
// (bench/sizes.mjs) loads every benchmark page in Chromium and runs every
// group of rows — the pages', Node's, Redis, the prompt cache, offload,
// markdown, fitting — once, on tiny workloads and the package as built.
// What it checks is that each group ran to its end and wrote its figures,
// not the figures.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../../scripts/serve.mjs';

/** Runs `node scripts/bench.mjs` with `more` in its environment, as a
 * user's shell runs it (not as a test file: no NODE_TEST_CONTEXT): its exit
 * code and output. */
function bench(more) {
  const env = { ...process.env, ...more };
  delete env.NODE_TEST_CONTEXT;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['scripts/bench.mjs'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    child.on('close', (code, signal) => resolve({ code: code ?? signal, out }));
  });
}

test('npm run bench runs every group to its end (BENCH_SMOKE=1: each on a tiny workload, once)', { timeout: 180_000 }, async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ctxpack-bench-smoke-'));
  try {
    const { code, out } = await bench({ BENCH_SMOKE: '1', BENCH_OUT: dir, BENCH_ONLY: '' });
    assert.equal(code, 0, out.slice(-6000));
    const result = JSON.parse(readFileSync(path.join(dir, 'bench.json'), 'utf8'));
    assert.equal(result.runs, 1);
    assert.deepEqual(Object.keys(result.browser).sort(), ['big', 'fit', 'longChat', 'longTasks', 'many', 'md5', 'resent']);
    assert.deepEqual(Object.keys(result.browser.longTasks).sort(), ['compactContext', 'expandContext', 'fitContext', 'sanitizeToolResult', 'toMultimodal']);
    assert.deepEqual(Object.keys(result.node).sort(), ['cache', 'fit', 'longChat', 'loops', 'markdown', 'nodeCrypto', 'nodeFile', 'nodeMemory', 'offload', 'proxy', 'redis', 'resent', 'sanitize']);
    // Each page's rows measured something: ctxpack's own row of each.
    assert.ok(result.browser.big.results.ctxpack.median > 0 && result.browser.many.results.ctxpack.median > 0);
    assert.ok(result.browser.md5.ctxpack.mbPerS > 0);
    assert.ok(result.browser.fit.ctxpack > 0 && result.node.fit.ctxpack > 0);
    assert.ok(result.size.gzip > 0);
    // The lines a reader looks for, one per group.
    for (const heading of ['re-sent (Chromium, IndexedDB)', 'longest main-thread task', '\nbig: ', '\nmany: ', 'fit in Chromium', 'md5 in Chromium', 'Node re-sent', 'Node big', 'Redis (Node, node-redis)', 'prompt cache, window', 'offload, computer use', 'markdown pathological inputs', 'fit in Node', 'proxy: the next turn of a conversation', 'agent loops: one prompt', 'release wasm']) {
      assert.ok(out.includes(heading), `no "${heading.trim()}" rows:\n${out.slice(-3000)}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
