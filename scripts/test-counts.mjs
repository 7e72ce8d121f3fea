// How `npm test` (scripts/test.mjs) reads the output of its steps and judges
// them: test counts from cargo's and wasm-bindgen-test's harness and from
// node's TAP reporter, the verdict on each step, the order of the run (a
// failed setup or build stops it) and the summary. Kept apart from the
// runner so tests/js/test_counts.test.mjs can feed it real output and steps
// of its own.

/** `text` without terminal colour codes. */
const plain = (text) => text.replace(/\x1b\[[0-9;]*m/g, '');

/**
 * Counts from `cargo test` and wasm-bindgen-test, read from the test
 * binaries' stdout (each binary prints `running N tests`, a line per test,
 * then `test result: ok. 3 passed; 0 failed; 1 ignored; …`). `stderr` is
 * cargo's own output, whose `Running …` and `Doc-tests …` lines say how many
 * binaries were started.
 *
 * A binary that started but printed no result (it crashed, or was killed)
 * counts the tests it announced and did not report as passed or ignored as
 * failed, or one failure when it announced nothing; `problems` says which.
 */
export function cargoCounts(stdout, stderr = '') {
  stdout = plain(stdout);
  stderr = plain(stderr);
  const counts = { passed: 0, failed: 0, ignored: 0, binaries: 0, problems: [] };
  /** The binary whose result is awaited: how many tests it announced and
   * the per-test lines seen so far. */
  let open = null;
  const unfinished = () => {
    const reported = open.ok + open.ignored;
    counts.passed += open.ok;
    counts.ignored += open.ignored;
    counts.failed += Math.max(open.announced - reported, 0);
    counts.problems.push(`a test binary announced ${open.announced} test${open.announced === 1 ? '' : 's'} and ended without a result`);
    open = null;
  };
  for (const line of stdout.split(/\r?\n/)) {
    let m = /^running (\d+) tests?$/.exec(line);
    if (m) {
      if (open) unfinished();
      open = { announced: Number(m[1]), ok: 0, ignored: 0 };
      counts.binaries++;
      continue;
    }
    m = /^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored;/.exec(line);
    if (m) {
      if (!open) counts.binaries++;
      counts.passed += Number(m[1]);
      counts.failed += Number(m[2]);
      counts.ignored += Number(m[3]);
      open = null;
      continue;
    }
    m = /^test .+ \.\.\. (ok|ignored)\b/.exec(line);
    if (m && open) open[m[1]]++;
  }
  if (open) unfinished();
  const started = [...stderr.matchAll(/^ +(?:Running .+ \(.+\)|Doc-tests \S+)$/gm)].length;
  if (started > counts.binaries) {
    const silent = started - counts.binaries;
    counts.failed += silent;
    counts.problems.push(`${silent} test binar${silent === 1 ? 'y' : 'ies'} started and printed nothing`);
  }
  return counts;
}

/**
 * Counts from node's test runner, TAP reporter: the summary block it ends
 * with (`# tests`, `# suites`, `# pass`, `# fail`, `# cancelled`,
 * `# skipped`, `# todo`, one after the other). Cancelled tests (timed out,
 * or cut short by their parent) count as failed. A todo test that passes
 * (or has no body) is reported as todo; one that fails, which node counts
 * as todo and lets pass, counts as failed, and `problems` names it (its
 * result line, at any depth: `not ok 4 - name # TODO`; a `#` in a name is
 * written `\#`). No summary block is a problem: the reporter changed, or
 * the runner died.
 */
export function nodeCounts(stdout) {
  stdout = plain(stdout);
  const counts = { passed: 0, failed: 0, cancelled: 0, skipped: 0, todo: 0, problems: [] };
  const block = /^# tests (\d+)\r?\n# suites \d+\r?\n# pass (\d+)\r?\n# fail (\d+)\r?\n# cancelled (\d+)\r?\n# skipped (\d+)\r?\n# todo (\d+)$/gm;
  let blocks = 0;
  for (const m of stdout.matchAll(block)) {
    blocks++;
    const [tests, pass, fail, cancelled, skipped, todo] = m.slice(1).map(Number);
    counts.passed += pass;
    counts.failed += fail + cancelled;
    counts.cancelled += cancelled;
    counts.skipped += skipped;
    counts.todo += todo;
    if (pass + fail + cancelled + skipped + todo !== tests) {
      counts.problems.push(`node reported ${tests} tests but ${pass + fail + cancelled + skipped + todo} outcomes`);
    }
  }
  if (blocks === 0) counts.problems.push("no summary from node's test runner");
  for (const m of stdout.matchAll(/^ *not ok \d+ - (.*?) # TODO(?: .*)?$/gm)) {
    counts.failed++;
    counts.todo--;
    counts.problems.push(`a todo test failed: ${m[1]}`);
  }
  return counts;
}

/**
 * The verdict on one step: `kind` is `setup`, `check` (lint, format),
 * `build` or `suite` (counts tests); `code` the exit code; `counts` a
 * suite's counts. A suite fails on a non-zero exit, a failed test, a problem
 * its counts found, or when no test ran at all (a reporter that changed
 * format would otherwise read as 0 passed, 0 failed).
 */
export function judge(kind, code, counts = null) {
  const problems = [];
  if (code !== 0) problems.push(`exit ${code}`);
  if (kind === 'suite') {
    if (counts.failed > 0) problems.push(`${counts.failed} failed`);
    problems.push(...counts.problems);
    if (counts.passed + counts.failed === 0) problems.push('no tests ran');
  }
  return { ok: problems.length === 0, problems };
}

/** Steps after a failed one of these kinds would run against stale or
 * missing inputs: the run stops there. */
export const STOPS_THE_RUN = new Set(['setup', 'build']);

/** Sums of the suites' counts (checks and builds are not tests). */
export function totals(results) {
  const sum = { passed: 0, failed: 0, ignored: 0, skipped: 0, todo: 0, cancelled: 0 };
  for (const r of results) {
    if (r.kind !== 'suite' || !r.counts) continue;
    for (const key of Object.keys(sum)) sum[key] += r.counts[key] ?? 0;
  }
  return sum;
}

/** One suite's counts in words: `12 passed, 0 failed, 1 ignored`, with
 * skipped, todo and cancelled when there are any. */
export function describeCounts(c) {
  const words = [`${c.passed} passed`, `${c.failed} failed`];
  for (const key of ['ignored', 'skipped', 'todo', 'cancelled']) {
    if (c[key]) words.push(`${c[key]} ${key}`);
  }
  return words.join(', ');
}

/**
 * Runs `steps` in order with `exec(step, {live})` (which resolves to
 * `{code, stdout, stderr}`): each step's counts and verdict. An entry that
 * is an array of lanes (each an array of steps) runs its lanes side by side,
 * each lane's steps in order; the first lane's output is shown as it comes
 * (`live`), the others' once each step ends, so no two steps' lines mix.
 * Results keep the order the steps are written in. After a failed step whose
 * kind is in STOPS_THE_RUN the rest are not run, and say so.
 */
export async function runSteps(steps, exec, log = console.log) {
  let stoppedBy = null;
  const runOne = async (step, live) => {
    if (stoppedBy) return { ...step, notRun: true, stoppedBy };
    if (live) log(`\n=== ${step.name} ===`);
    const t0 = Date.now();
    const { code, stdout, stderr } = await exec(step, { live });
    if (!live) log(`\n=== ${step.name} ===\n${stdout}${stderr}`);
    const counts = step.counter ? step.counter(stdout, stderr) : null;
    const verdict = judge(step.kind, code, counts);
    if (!verdict.ok && STOPS_THE_RUN.has(step.kind)) stoppedBy = step.name;
    return { ...step, code, counts, ...verdict, startedAt: t0, ms: Date.now() - t0 };
  };
  const runLane = async (lane, live) => {
    const out = [];
    for (const step of lane) out.push(await runOne(step, live));
    return out;
  };
  const results = [];
  for (const entry of steps) {
    if (Array.isArray(entry)) {
      const lanes = await Promise.all(entry.map((lane, i) => runLane(lane, i === 0)));
      results.push(...lanes.flat());
    } else {
      results.push(await runOne(entry, true));
    }
  }
  return results;
}

/**
 * When each step that ran started and ended, in seconds from `started` (a
 * `Date.now()` value), in the order they started: with lanes side by side,
 * which steps overlapped and which one the run waited for last.
 */
export function timeline(results, started) {
  const at = (ms) => `+${((ms - started) / 1000).toFixed(0)}s`.padStart(6);
  return results
    .filter((r) => r.startedAt != null)
    .sort((a, b) => a.startedAt - b.startedAt)
    .map((r) => `${at(r.startedAt)} → ${at(r.startedAt + r.ms)}  ${r.name}`);
}

/**
 * The summary of a run: checks and builds as ok or FAIL, each suite with its
 * counts, steps not run, and a total line that counts tests only. The exit
 * code is 0 only when every step ran and passed.
 */
export function summary(results) {
  const lines = [];
  const row = (status, name, what, ms) => lines.push(`${status} ${name.padEnd(34)} ${what.padEnd(40)} ${ms == null ? '' : `${(ms / 1000).toFixed(1)}s`}`.trimEnd());
  const show = (r) => {
    if (r.notRun) row('-   ', r.name, `not run (${r.stoppedBy} failed)`);
    else if (r.kind === 'suite') row(r.ok ? 'ok  ' : 'FAIL', r.name, [describeCounts(r.counts), ...r.problems.filter((p) => !/^\d+ failed$/.test(p))].join('; '), r.ms);
    else row(r.ok ? 'ok  ' : 'FAIL', r.name, r.problems.join('; '), r.ms);
  };
  results.filter((r) => r.kind !== 'suite').forEach(show);
  results.filter((r) => r.kind === 'suite').forEach(show);
  const failed = results.filter((r) => !r.notRun && !r.ok).length;
  const notRun = results.filter((r) => r.notRun).length;
  lines.push(`total: ${describeCounts(totals(results))} (tests only)${failed ? `; ${failed} step${failed === 1 ? '' : 's'} failed` : ''}${notRun ? `; ${notRun} not run` : ''}`);
  return { lines, exitCode: failed === 0 && notRun === 0 ? 0 : 1 };
}
