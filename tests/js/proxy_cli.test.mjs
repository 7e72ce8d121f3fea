// `ctxpack proxy` and `ctxpack mcp` on the command line: their help, their
// usage errors, and the main help naming both.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { cli } from './support/proxy_stub.mjs';

const run = (...args) => spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8' });

test('--help of each server lists its flags and exits 0; the main help names both', () => {
  const proxy = run('proxy', '--help');
  assert.equal(proxy.status, 0, proxy.stderr);
  for (const flag of ['--port', '--host', '--keep-recent-images', '--no-slack', '--anthropic-upstream', '--openai-upstream', '--gemini-upstream', '--stash-dir', '--redis', '--offload', '--quiet', '--json-log']) assert.ok(proxy.stdout.includes(flag), flag);
  assert.match(proxy.stdout, /default: 3\)/);
  const mcp = run('mcp', '--help');
  assert.equal(mcp.status, 0, mcp.stderr);
  assert.match(mcp.stdout, /claude mcp add ctxpack -- npx ctxpack mcp/);
  for (const flag of ['--stash-dir', '--redis', '--ttl-seconds']) assert.ok(mcp.stdout.includes(flag), flag);
  const main = run('--help');
  assert.match(main.stdout, /ctxpack proxy \[options\]/);
  assert.match(main.stdout, /ctxpack mcp \[options\]/);
});

test('usage errors exit 1 with the usage: an unknown flag, a missing value, --stash-dir with --redis, a bad upstream', () => {
  for (const args of [['proxy', '--nope'], ['proxy', '--port'], ['proxy', '--port', 'x'], ['mcp', '--stash-dir', 'a', '--redis', 'redis://x'], ['proxy', '--openai-upstream', 'ftp://x', '--stash-dir', 'unused']]) {
    const r = run(...args);
    assert.equal(r.status, 1, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /^ctxpack: /);
  }
});
