// `npm test`: sets up what is missing (`scripts/setup.sh --test`: the build's
// tools and the tests' own, Chromium among them), then runs every check and
// test suite in order and ends with one summary line of counts. Exits non-zero
// on any failure.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const only = process.argv.slice(2);
const started = Date.now();

function run(cmd, args, env = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; process.stdout.write(d); });
    child.stderr.on('data', (d) => { out += d; process.stderr.write(d); });
    child.on('close', (code) => resolve({ code, out }));
    child.on('error', (e) => resolve({ code: 127, out: String(e) }));
  });
}

/** Counts from `cargo test` / wasm-bindgen-test ("test result: ok. 3 passed; 0 failed"). */
function cargoCounts(out) {
  let passed = 0;
  let failed = 0;
  for (const m of out.matchAll(/test result: \w+\. (\d+) passed; (\d+) failed/g)) {
    passed += Number(m[1]);
    failed += Number(m[2]);
  }
  return { passed, failed };
}

/** Counts from node's test runner ("# pass 3", "# fail 0"). */
function nodeCounts(out) {
  const pass = [...out.matchAll(/^# pass (\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0);
  const fail = [...out.matchAll(/^# fail (\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0);
  return { passed: pass, failed: fail };
}

const jsTests = readdirSync(path.join(root, 'tests/js'))
  .filter((f) => f.endsWith('.test.mjs'))
  .sort()
  .map((f) => path.join('tests/js', f));

const steps = [
  ['setup', 'bash', ['scripts/setup.sh', '--test'], null],
  ['cargo fmt', 'cargo', ['fmt', '--all', '--', '--check'], null],
  ['clippy (native)', 'cargo', ['clippy', '--workspace', '--all-targets', '--', '-D', 'warnings'], null],
  ['clippy (wasm32)', 'cargo', ['clippy', '--all-targets', '--target', 'wasm32-unknown-unknown', '--', '-D', 'warnings'], null],
  // The markdown and codec modules' wasm-only code (their exports), linted on
  // their own: with the main crate their allocator features would unify.
  ['clippy (wasm32 modules)', 'cargo', ['clippy', '-p', 'ctxpack-markdown', '-p', 'ctxpack-codec', '--all-targets', '--target', 'wasm32-unknown-unknown', '--', '-D', 'warnings'], null],
  ['cargo test', 'cargo', ['test', '--workspace'], cargoCounts],
  ['wasm-pack test --node', 'wasm-pack', ['test', '--node', '--', '--test', 'wasm_node'], cargoCounts],
  ['wasm-pack test --chrome', 'wasm-pack', ['test', '--headless', '--chrome', '--', '--test', 'wasm_browser'], cargoCounts],
  ['wasm-pack test --chrome (worker)', 'wasm-pack', ['test', '--headless', '--chrome', '--', '--test', 'wasm_worker'], cargoCounts],
  ['build package', 'node', ['scripts/build.mjs'], null],
  ['node --test', 'node', ['--test', '--test-concurrency=2', ...jsTests], nodeCounts],
];

const results = [];
for (const [name, cmd, args, counter] of steps) {
  if (only.length && !only.some((o) => name.includes(o))) continue;
  console.log(`\n=== ${name} ===`);
  const t0 = Date.now();
  const { code, out } = await run(cmd, args);
  const counts = counter ? counter(out) : { passed: code === 0 ? 1 : 0, failed: code === 0 ? 0 : 1 };
  if (code !== 0 && counts.failed === 0) counts.failed = 1;
  results.push({ name, code, ms: Date.now() - t0, ...counts, isSuite: !!counter });
  if (code !== 0 && name === 'setup') break;
}

console.log('\n=== summary ===');
for (const r of results) {
  const what = r.isSuite ? `${r.passed} passed, ${r.failed} failed` : r.code === 0 ? 'ok' : `exit ${r.code}`;
  console.log(`${r.code === 0 ? 'ok  ' : 'FAIL'} ${r.name.padEnd(34)} ${what.padEnd(24)} ${(r.ms / 1000).toFixed(1)}s`);
}
const passed = results.reduce((n, r) => n + r.passed, 0);
const failed = results.reduce((n, r) => n + r.failed, 0);
console.log(`(${((Date.now() - started) / 1000).toFixed(0)}s; checks count once each)`);
console.log(`total: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 && results.every((r) => r.code === 0) ? 0 : 1);
