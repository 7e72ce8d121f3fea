// How `npm test` reads its steps' output (scripts/test-counts.mjs), fed
// real output of cargo's and wasm-bindgen-test's harness and of node's test
// runner: every test counted once, ignored, skipped, todo and cancelled ones
// reported, a test binary that crashed or printed nothing counted as failed,
// and a suite whose output reads as no tests at all failing.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cargoCounts, describeCounts, judge, nodeCounts, runSteps, STOPS_THE_RUN, summary, timeline, totals } from '../../scripts/test-counts.mjs';

const lines = (...l) => `${l.join('\n')}\n`;

// `cargo test --no-fail-fast` on a crate with unit tests (one ignored), a
// test binary with a failing and an ignored test, one that aborts, one that
// passes, one with no tests, and a doc test: the binaries' stdout, then
// cargo's stderr.
const cargoStdout = lines(
  '',
  'running 2 tests',
  'test tests::slow ... ignored, slow',
  'test tests::adds ... ok',
  '',
  'test result: ok. 1 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s',
  '',
  '',
  'running 3 tests',
  'test ignored ... ignored',
  'test one_fails ... FAILED',
  'test one_passes ... ok',
  '',
  'failures:',
  '',
  '---- one_fails stdout ----',
  '',
  "thread 'one_fails' (13001) panicked at tests/a_fails.rs:2:18:",
  'assertion `left == right` failed',
  '  left: 1',
  ' right: 2',
  'note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace',
  '',
  '',
  'failures:',
  '    one_fails',
  '',
  'test result: FAILED. 1 passed; 1 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.01s',
  '',
  '',
  'running 1 test',
  '',
  'running 2 tests',
  'test fine_too ... ok',
  'test fine ... ok',
  '',
  'test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s',
  '',
  '',
  'running 0 tests',
  '',
  'test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s',
  '',
  '',
  'running 1 test',
  'test src/lib.rs - add (line 5) ... ok',
  '',
  'test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s',
  '',
  'all doctests ran in 0.27s; merged doctests compilation took 0.26s',
);
const cargoStderr = lines(
  '    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.02s',
  '     Running unittests src/lib.rs (target/debug/deps/sample-e6daf73c296d6df0)',
  '     Running tests/a_fails.rs (target/debug/deps/a_fails-6b8ff83ef3b894fd)',
  'error: test failed, to rerun pass `--test a_fails`',
  '     Running tests/b_crashes.rs (target/debug/deps/b_crashes-e38c2cbb459200e4)',
  'error: test failed, to rerun pass `--test b_crashes`',
  '',
  'Caused by:',
  "  process didn't exit successfully: `/tmp/sample/target/debug/deps/b_crashes-e38c2cbb459200e4` (signal: 6, SIGABRT: process abort signal)",
  '     Running tests/c_passes.rs (target/debug/deps/c_passes-16ce086c2173d864)',
  '     Running tests/d_empty.rs (target/debug/deps/d_empty-be6e9bd4570ddc5a)',
  '   Doc-tests sample',
  'error: 2 targets failed:',
  '    `--test a_fails`',
  '    `--test b_crashes`',
);

test('cargo: every binary counted, ignored tests reported, the aborted binary counted as failed', () => {
  const c = cargoCounts(cargoStdout, cargoStderr);
  assert.deepEqual(
    { passed: c.passed, failed: c.failed, ignored: c.ignored, binaries: c.binaries },
    { passed: 5, failed: 2, ignored: 2, binaries: 6 },
  );
  assert.deepEqual(c.problems, ['a test binary announced 1 test and ended without a result']);
  assert.deepEqual(judge('suite', 101, c), { ok: false, problems: ['exit 101', '2 failed', 'a test binary announced 1 test and ended without a result'] });
  assert.equal(describeCounts(c), '5 passed, 2 failed, 2 ignored');
});

test('cargo: a binary that dies after some of its tests passed counts the rest as failed', () => {
  const c = cargoCounts(lines('running 4 tests', 'test a ... ok', 'test b ... ignored', 'test c ... ok'), lines('     Running tests/x.rs (target/debug/deps/x-0)'));
  assert.deepEqual({ passed: c.passed, failed: c.failed, ignored: c.ignored }, { passed: 2, failed: 1, ignored: 1 });
  assert.equal(c.problems.length, 1);
});

test('cargo: a binary cargo started that printed nothing counts as a failure', () => {
  // The same run with the aborted binary's stdout gone entirely.
  const c = cargoCounts(cargoStdout.replace('running 1 test\n\nrunning 2 tests', 'running 2 tests'), cargoStderr);
  assert.deepEqual({ passed: c.passed, failed: c.failed, binaries: c.binaries }, { passed: 5, failed: 2, binaries: 5 });
  assert.deepEqual(c.problems, ['1 test binary started and printed nothing']);
});

test('cargo: without --no-fail-fast the binaries after the first failure never run; the runner passes it', () => {
  // `cargo test` (fail fast) on the same crate stops after a_fails.
  const failFast = cargoStdout.slice(0, cargoStdout.indexOf('running 1 test\n'));
  assert.deepEqual(cargoCounts(failFast).passed, 2);
  const runner = readFileSync(new URL('../../scripts/test.mjs', import.meta.url), 'utf8');
  assert.match(runner, /args: \['test', '--workspace', '--no-fail-fast'\]/);
});

test('cargo: a binary with no tests is fine, a step with no tests at all fails', () => {
  const empty = lines('running 0 tests', '', 'test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s');
  const c = cargoCounts(empty, lines('   Doc-tests ctxpack_core'));
  assert.deepEqual({ passed: c.passed, failed: c.failed, binaries: c.binaries, problems: c.problems }, { passed: 0, failed: 0, binaries: 1, problems: [] });
  assert.deepEqual(judge('suite', 0, c), { ok: false, problems: ['no tests ran'] });
  assert.deepEqual(judge('suite', 0, cargoCounts(`${empty}${cargoStdout.slice(cargoStdout.lastIndexOf('running 1 test'))}`)).ok, true);
  // Output in a format the parser does not know reads as nothing: a failure.
  assert.equal(judge('suite', 0, cargoCounts('12 tests passed\n')).ok, false);
});

test('wasm-bindgen-test: its result line (no "measured") and failures', () => {
  const ok = cargoCounts(
    lines('running 12 tests', 'test wasm_node::compacts ... ok', '', 'test result: ok. 12 passed; 0 failed; 0 ignored; 0 filtered out; finished in 0.12s'),
    lines('     Running tests/wasm_node.rs (target/wasm32-unknown-unknown/debug/deps/wasm_node-57c40f7173b1898d.wasm)'),
  );
  assert.deepEqual({ passed: ok.passed, failed: ok.failed, problems: ok.problems }, { passed: 12, failed: 0, problems: [] });
  assert.deepEqual(judge('suite', 0, ok), { ok: true, problems: [] });
  const failed = cargoCounts(lines('running 3 tests', 'test a ... ok', 'test b ... FAIL', 'test c ... ignored, later', '', 'test result: FAILED. 1 passed; 1 failed; 1 ignored; 0 filtered out; finished in 0.10s'));
  assert.deepEqual({ passed: failed.passed, failed: failed.failed, ignored: failed.ignored }, { passed: 1, failed: 1, ignored: 1 });
});

test('cargo: colour codes do not hide the counts', () => {
  const c = cargoCounts('running 1 test\ntest a ... \x1b[32mok\x1b[0m\n\ntest result: \x1b[32mok\x1b[0m. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\n', '\x1b[1m\x1b[92m     Running\x1b[0m tests/a.rs (target/debug/deps/a-0)\n');
  assert.deepEqual({ passed: c.passed, problems: c.problems }, { passed: 1, problems: [] });
});

// node --test --test-reporter=tap on a file with a passing, a failing, a
// skipped and two todo tests, a parent whose subtest it did not await, and
// a test that timed out (trimmed to the result lines and the summary).
const tap = lines(
  'TAP version 13',
  '# Subtest: passes',
  'ok 1 - passes',
  '# Subtest: fails',
  'not ok 2 - fails',
  '# Subtest: skipped',
  'ok 3 - skipped # SKIP not here',
  '# Subtest: todo',
  'not ok 4 - todo # TODO later',
  '# Subtest: todo passing',
  'ok 5 - todo passing # TODO',
  '# Subtest: parent',
  '    # Subtest: sub ok',
  '    ok 1 - sub ok',
  '    # Subtest: sub never awaited',
  '    not ok 2 - sub never awaited',
  "      failureType: 'cancelledByParent'",
  '    1..2',
  'not ok 6 - parent',
  '# Subtest: times out',
  'not ok 7 - times out',
  "  failureType: 'testTimeoutFailure'",
  '1..7',
  '# tests 9',
  '# suites 0',
  '# pass 2',
  '# fail 2',
  '# cancelled 2',
  '# skipped 1',
  '# todo 2',
  '# duration_ms 1106.575188',
);

test('node: skipped, todo and cancelled are read; cancelled and a failing todo count as failed', () => {
  const c = nodeCounts(tap);
  assert.deepEqual(c, { passed: 2, failed: 5, cancelled: 2, skipped: 1, todo: 1, problems: ['a todo test failed: todo'] });
  assert.equal(describeCounts(c), '2 passed, 5 failed, 1 skipped, 1 todo, 2 cancelled');
  assert.deepEqual(judge('suite', 1, c), { ok: false, problems: ['exit 1', '5 failed', 'a todo test failed: todo'] });
  // Cancelled alone fails the step.
  const cancelled = nodeCounts(tap.replace('# fail 2', '# fail 0').replace('# tests 9', '# tests 7').replace('not ok 4 - todo # TODO', 'ok 4 - todo # TODO'));
  assert.equal(cancelled.failed, 2);
  assert.equal(judge('suite', 0, cancelled).ok, false);
});

test('node: a todo test that fails, at any depth, fails the step though node exits 0; one that passes is todo', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ctxpack-todo-'));
  const file = path.join(dir, 'todo.test.mjs');
  writeFileSync(file, lines(
    "import test from 'node:test';",
    "test('passes', () => {});",
    "test('fails \\# TODO in its name', { todo: true }, () => { throw new Error('not yet'); });",
    "test('passes though todo', { todo: 'later' }, () => {});",
    "test.todo('no body yet');",
    "test('parent', async (t) => { await t.test('fails inside', { todo: true }, () => { throw new Error('no'); }); });",
  ));
  // A run of its own, not a subtest of this one's (node tells a child run by NODE_TEST_CONTEXT).
  const { NODE_TEST_CONTEXT, ...env } = process.env;
  const run = spawnSync(process.execPath, ['--test', '--test-reporter=tap', file], { encoding: 'utf8', env });
  rmSync(dir, { recursive: true, force: true });
  assert.equal(run.status, 0, 'node lets a failing todo pass');
  const c = nodeCounts(run.stdout);
  assert.deepEqual(c, { passed: 2, failed: 2, cancelled: 0, skipped: 0, todo: 2, problems: ['a todo test failed: fails \\# TODO in its name', 'a todo test failed: fails inside'] });
  assert.equal(judge('suite', run.status, c).ok, false);
  // Without the failing ones, the step passes with its todo tests reported.
  const passing = nodeCounts(run.stdout.replace(/^( *)not ok (\d+ - .*# TODO)$/gm, '$1ok $2'));
  assert.deepEqual(judge('suite', 0, passing), { ok: true, problems: [] });
  assert.equal(passing.todo, 4);
});

test('node: a test that logs "# pass 99" is not counted', () => {
  const out = lines('TAP version 13', '# pass 99', '# \\# pass 98', '# Subtest: logs', 'ok 1 - logs', '1..1', '# tests 1', '# suites 0', '# pass 1', '# fail 0', '# cancelled 0', '# skipped 0', '# todo 0', '# duration_ms 146.949874');
  assert.deepEqual(nodeCounts(out), { passed: 1, failed: 0, cancelled: 0, skipped: 0, todo: 0, problems: [] });
});

test('node: the spec reporter\'s summary is not TAP: no summary, and the step fails though node exits 0', () => {
  const spec = lines('✔ a (0.2ms)', '✔ b (0.1ms)', 'ℹ tests 2', 'ℹ suites 0', 'ℹ pass 2', 'ℹ fail 0', 'ℹ cancelled 0', 'ℹ skipped 0', 'ℹ todo 0', 'ℹ duration_ms 172.000315');
  const c = nodeCounts(spec);
  assert.deepEqual(c.problems, ["no summary from node's test runner"]);
  assert.deepEqual(judge('suite', 0, c), { ok: false, problems: ["no summary from node's test runner", 'no tests ran'] });
});

test('node: counts that do not add up are a problem', () => {
  const c = nodeCounts(tap.replace('# tests 9', '# tests 12'));
  assert.deepEqual(c.problems, ['node reported 12 tests but 9 outcomes', 'a todo test failed: todo']);
});

test('checks and builds are judged by their exit code and are not tests', () => {
  assert.deepEqual(judge('check', 0), { ok: true, problems: [] });
  assert.deepEqual(judge('check', 1), { ok: false, problems: ['exit 1'] });
  assert.deepEqual(judge('build', 'signal SIGKILL'), { ok: false, problems: ['exit signal SIGKILL'] });
  const results = [
    { kind: 'check', code: 0, counts: null },
    { kind: 'build', code: 0, counts: null },
    { kind: 'suite', counts: cargoCounts(cargoStdout, cargoStderr) },
    { kind: 'suite', counts: nodeCounts(tap) },
    { kind: 'suite', notRun: true },
  ];
  assert.deepEqual(totals(results), { passed: 7, failed: 7, ignored: 2, skipped: 1, todo: 1, cancelled: 2 });
  // A failed setup or build stops the run; a failed check does not.
  assert.deepEqual([...STOPS_THE_RUN].sort(), ['build', 'setup']);
});

/** Steps like the runner's, and an `exec` that answers each by name. */
function fakeRun(outcomes) {
  const steps = [
    { name: 'setup', kind: 'setup' },
    { name: 'cargo fmt', kind: 'check' },
    { name: 'cargo test', kind: 'suite', counter: cargoCounts },
    { name: 'build package', kind: 'build' },
    { name: 'node --test', kind: 'suite', counter: (stdout) => nodeCounts(stdout) },
  ];
  const ran = [];
  const exec = async (step) => {
    ran.push(step.name);
    return { code: 0, stdout: '', stderr: '', ...outcomes[step.name] };
  };
  return { steps, ran, exec };
}
const passingCargo = { stdout: cargoStdout.replace(/1 failed/, '0 failed').replace('running 1 test\n\n', ''), stderr: cargoStderr.replace(/ +Running tests\/b_crashes.*\n/, '') };
const passingTap = { stdout: tap.replace('# fail 2', '# fail 0').replace('# cancelled 2', '# cancelled 0').replace('# tests 9', '# tests 5').replace('not ok 4 - todo # TODO', 'ok 4 - todo # TODO') };
const quiet = () => {};

test('a run where everything passes: checks ok, tests counted once, exit 0', async () => {
  const { steps, ran, exec } = fakeRun({ 'cargo test': passingCargo, 'node --test': passingTap });
  const results = await runSteps(steps, exec, quiet);
  assert.deepEqual(ran, ['setup', 'cargo fmt', 'cargo test', 'build package', 'node --test']);
  const { lines, exitCode } = summary(results);
  assert.equal(exitCode, 0);
  assert.equal(lines.at(-1), 'total: 7 passed, 0 failed, 2 ignored, 1 skipped, 2 todo (tests only)');
  assert.match(lines[0], /^ok {3}setup/);
  assert.match(lines[1], /^ok {3}cargo fmt/);
  assert.match(lines.find((l) => l.includes('cargo test')), /^ok {3}cargo test +5 passed, 0 failed, 2 ignored/);
});

test('a failed build stops the run: node --test is not run against the old dist, exit 1', async () => {
  const { steps, ran, exec } = fakeRun({ 'cargo test': passingCargo, 'build package': { code: 1 }, 'node --test': passingTap });
  const results = await runSteps(steps, exec, quiet);
  assert.deepEqual(ran, ['setup', 'cargo fmt', 'cargo test', 'build package']);
  const { lines, exitCode } = summary(results);
  assert.equal(exitCode, 1);
  assert.match(lines.find((l) => l.includes('build package')), /^FAIL build package +exit 1 +\d+\.\ds$/);
  assert.match(lines.find((l) => l.includes('node --test')), /^- {4}node --test +not run \(build package failed\)$/);
  assert.equal(lines.at(-1), 'total: 5 passed, 0 failed, 2 ignored (tests only); 1 step failed; 1 not run');
});

test('a failed setup stops the run before anything else', async () => {
  const { steps, ran, exec } = fakeRun({ setup: { code: 2 } });
  const { exitCode, lines } = summary(await runSteps(steps, exec, quiet));
  assert.deepEqual(ran, ['setup']);
  assert.equal(exitCode, 1);
  assert.equal(lines.filter((l) => l.includes('not run (setup failed)')).length, 4);
});

test('a failed check fails the run without stopping it', async () => {
  const { steps, ran, exec } = fakeRun({ 'cargo fmt': { code: 1 }, 'cargo test': passingCargo, 'node --test': passingTap });
  const { exitCode, lines } = summary(await runSteps(steps, exec, quiet));
  assert.equal(ran.length, 5);
  assert.equal(exitCode, 1);
  assert.equal(lines.at(-1), 'total: 7 passed, 0 failed, 2 ignored, 1 skipped, 2 todo (tests only); 1 step failed');
});

test('a suite that exits 0 but whose output reads as no tests fails the run', async () => {
  const spec = 'ℹ tests 2\nℹ pass 2\nℹ fail 0\n';
  const { steps, exec } = fakeRun({ 'cargo test': passingCargo, 'node --test': { stdout: spec } });
  const { exitCode, lines } = summary(await runSteps(steps, exec, quiet));
  assert.equal(exitCode, 1);
  assert.match(lines.find((l) => l.includes('node --test')), /^FAIL node --test +0 passed, 0 failed; no summary from node's test runner; no tests ran/);
});

test('lanes run side by side: every step runs, results keep the written order, only the first lane is live', async () => {
  const { ran, exec } = fakeRun({ 'cargo test': passingCargo, 'node --test': passingTap });
  const [setup, fmt, cargo, build, node] = fakeRun({}).steps;
  // The second lane's step ends first: it was started beside the first lane.
  let release;
  const gate = new Promise((r) => { release = r; });
  const live = new Map();
  const logged = [];
  const results = await runSteps([setup, build, [[node, fmt], [cargo]]], async (step, how) => {
    live.set(step.name, how.live);
    if (step.name === 'node --test') await gate;
    const out = await exec(step);
    if (step.name === 'cargo test') release();
    return out;
  }, (line) => logged.push(line));
  assert.deepEqual(ran, ['setup', 'build package', 'cargo test', 'node --test', 'cargo fmt']);
  assert.deepEqual(results.map((r) => r.name), ['setup', 'build package', 'node --test', 'cargo fmt', 'cargo test']);
  assert.deepEqual(Object.fromEntries(live), { setup: true, 'build package': true, 'node --test': true, 'cargo fmt': true, 'cargo test': false });
  // The buffered step's output is printed after its header, in one piece.
  const shown = logged.find((l) => l.startsWith('\n=== cargo test ===\n'));
  assert.ok(shown?.includes(passingCargo.stdout), logged.join('|'));
  assert.equal(summary(results).exitCode, 0);
});

test('a failed build before the lanes stops them all', async () => {
  const { ran, exec } = fakeRun({ 'build package': { code: 1 } });
  const [setup, fmt, cargo, build, node] = fakeRun({}).steps;
  const { lines, exitCode } = summary(await runSteps([setup, build, [[node], [fmt, cargo]]], exec, quiet));
  assert.deepEqual(ran, ['setup', 'build package']);
  assert.equal(exitCode, 1);
  assert.equal(lines.filter((l) => l.includes('not run (build package failed)')).length, 3);
});

test('a build that fails in a lane stops what has not started in every lane; the step beside it still counts', async () => {
  const { ran, exec } = fakeRun({ 'build package': { code: 1 }, 'cargo test': passingCargo });
  const [setup, fmt, cargo, build, node] = fakeRun({}).steps;
  // The cargo test runs beside the build and ends after it failed; the
  // check queued behind it in the same lane, and node --test, never start.
  let failed;
  const buildDone = new Promise((r) => { failed = r; });
  const results = await runSteps([setup, [[build, node], [cargo, fmt]]], async (step) => {
    if (step.name === 'cargo test') await buildDone;
    const out = await exec(step);
    if (step.name === 'build package') failed();
    return out;
  }, quiet);
  assert.deepEqual(ran, ['setup', 'build package', 'cargo test']);
  const { lines, exitCode } = summary(results);
  assert.equal(exitCode, 1);
  assert.match(lines.find((l) => l.includes('cargo test')), /^ok {3}cargo test +5 passed, 0 failed, 2 ignored/);
  assert.equal(lines.filter((l) => l.includes('not run (build package failed)')).length, 2);
  assert.equal(lines.at(-1), 'total: 5 passed, 0 failed, 2 ignored (tests only); 1 step failed; 2 not run');
});

test('the timeline lists the steps that ran in the order they started, from the start of the run', async () => {
  const { steps, exec } = fakeRun({ 'cargo test': passingCargo, 'build package': { code: 1 } });
  const started = Date.now();
  const results = await runSteps(steps, exec, quiet);
  const lines = timeline(results, started);
  assert.deepEqual(lines.map((l) => l.replace(/^ *\+\d+s → +\+\d+s {2}/, '')), ['setup', 'cargo fmt', 'cargo test', 'build package']);
  const shifted = timeline([{ name: 'b', startedAt: started + 90_000, ms: 30_000 }, { name: 'a', startedAt: started + 2_000, ms: 500_400 }, { name: 'c', notRun: true }], started);
  assert.deepEqual(shifted, ['   +2s →  +502s  a', '  +90s →  +120s  b']);
});
