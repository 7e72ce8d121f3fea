// `npm test`: sets up what is missing (`scripts/setup.sh --test`: the build's
// tools and the tests' own, Chromium among them), then runs every check and
// test suite in order and ends with a summary: each check ok or FAIL, each
// suite's counts, and one total line that counts tests only. Exits non-zero
// on any failure. A failed setup or build stops the run (what follows would
// test stale or missing output); the steps left are listed as not run.
//
// `node scripts/test.mjs <fragment>…` runs only the steps whose names hold
// one of the fragments.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cargoCounts, nodeCounts, runSteps, summary } from './test-counts.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const only = process.argv.slice(2);
const started = Date.now();

function run(cmd, args, env = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; process.stdout.write(d); });
    child.stderr.on('data', (d) => { stderr += d; process.stderr.write(d); });
    child.on('close', (code, signal) => resolve({ code: code ?? `signal ${signal}`, stdout, stderr }));
    child.on('error', (e) => resolve({ code: 127, stdout, stderr: stderr + String(e) }));
  });
}

const jsTests = readdirSync(path.join(root, 'tests/js'))
  .filter((f) => f.endsWith('.test.mjs'))
  .sort()
  .map((f) => path.join('tests/js', f));

// Every test binary runs even when an earlier one failed (--no-fail-fast),
// so none vanishes from the counts. The wasm test binaries run under
// wasm-bindgen's own test runner (installed with wasm-bindgen-cli): each
// binary says where it runs (Node, a Chromium page, a dedicated worker), and
// Chromium comes through chromedriver with webdriver.json's options.
const wasmTests = {
  CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER: 'wasm-bindgen-test-runner',
  CHROMEDRIVER: process.env.CHROMEDRIVER || '/usr/bin/chromedriver',
};
const steps = [
  { name: 'setup', kind: 'setup', cmd: 'bash', args: ['scripts/setup.sh', '--test'] },
  { name: 'cargo fmt', kind: 'check', cmd: 'cargo', args: ['fmt', '--all', '--', '--check'] },
  { name: 'clippy (native)', kind: 'check', cmd: 'cargo', args: ['clippy', '--workspace', '--all-targets', '--', '-D', 'warnings'] },
  { name: 'clippy (wasm32)', kind: 'check', cmd: 'cargo', args: ['clippy', '--all-targets', '--target', 'wasm32-unknown-unknown', '--', '-D', 'warnings'] },
  // The markdown and codec modules' wasm-only code (their exports), linted on
  // their own: with the main crate their allocator features would unify.
  { name: 'clippy (wasm32 modules)', kind: 'check', cmd: 'cargo', args: ['clippy', '-p', 'ctxpack-markdown', '-p', 'ctxpack-codec', '--all-targets', '--target', 'wasm32-unknown-unknown', '--', '-D', 'warnings'] },
  { name: 'cargo test', kind: 'suite', counter: cargoCounts, cmd: 'cargo', args: ['test', '--workspace', '--no-fail-fast'] },
  { name: 'wasm tests (Node, Chromium page, worker)', kind: 'suite', counter: cargoCounts, cmd: 'cargo', args: ['test', '--target', 'wasm32-unknown-unknown', '--no-fail-fast', '--test', 'wasm_node', '--test', 'wasm_browser', '--test', 'wasm_worker'], env: wasmTests },
  { name: 'build package', kind: 'build', cmd: 'node', args: ['scripts/build.mjs'] },
  { name: 'node --test', kind: 'suite', counter: (stdout) => nodeCounts(stdout), cmd: 'node', args: ['--test', '--test-reporter=tap', '--test-concurrency=2', ...jsTests] },
];

const selected = steps.filter((s) => !only.length || only.some((o) => s.name.includes(o)));
const results = await runSteps(selected, (step) => run(step.cmd, step.args, step.env));
const { lines, exitCode } = summary(results);
console.log('\n=== summary ===');
for (const line of lines.slice(0, -1)) console.log(line);
console.log(`(${((Date.now() - started) / 1000).toFixed(0)}s)`);
console.log(lines.at(-1));
process.exit(exitCode);
