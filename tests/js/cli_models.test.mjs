// `ctxpack models [--json] [FILTER]`, run as a user runs it: the model table
// with each model's limits, token rule, context, source and date.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { modelIds } from 'ctxpack';
import { ROOT } from '../../scripts/serve.mjs';

const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const run = (args) => spawnSync(process.execPath, [path.join(ROOT, pkg.bin.ctxpack), ...args], { cwd: ROOT, encoding: 'utf8' });

test('ctxpack models lists every row with its limits, token rule, context and numbered source', () => {
  const r = run(['models']);
  assert.equal(r.status, 0, r.stderr);
  const [head, ...rest] = r.stdout.trimEnd().split('\n');
  assert.match(head, /^model +provider +context +images$/);
  const rows = rest.slice(0, rest.indexOf(''));
  const notes = rest.slice(rest.indexOf('') + 1);
  assert.deepEqual(rows.map((l) => l.split(' ')[0]), modelIds());
  const sonnet = rows.find((l) => l.startsWith('claude-sonnet-5-5 '));
  assert.match(sonnet, /anthropic +1,000,000 +600 images, 5 MB of base64 each, 32 MB a request; 28-px patches ≤ 2576 px, 4784 \[\d+\]$/);
  assert.match(rows.find((l) => l.startsWith('claude-sonnet-4-5 ')), /\(retired 2026-11-30\)/);
  assert.match(rows.find((l) => l.startsWith('gpt-3.5-turbo ')), /openai +16,385 +reads no images/);
  // Every note names a page and the day it was read.
  assert.ok(notes.length >= 5);
  for (const note of notes) assert.match(note, /^\[\d+\] \S+\.(com|dev)\/.*read \d{4}-\d{2}-\d{2}/);
});

test('ctxpack models FILTER keeps matching ids or a provider, else resolves the id; --json prints the profiles', () => {
  const gpt6 = run(['models', '--json', 'gpt-6']);
  assert.equal(gpt6.status, 0, gpt6.stderr);
  const profiles = JSON.parse(gpt6.stdout);
  assert.deepEqual(profiles.map((p) => p.id), modelIds().filter((id) => id.includes('gpt-6')));
  assert.ok(profiles.every((p) => p.contextTokens === 1050000 && p.tokens.kind === 'openai-patches' && /read 2026-12-06/.test(p.source)));
  const anthropic = run(['models', 'anthropic']).stdout.trimEnd().split('\n');
  assert.ok(anthropic.slice(1, anthropic.indexOf('')).every((l) => / anthropic /.test(l)));
  const next = run(['models', 'claude-sonnet-6']);
  assert.equal(next.status, 0, next.stderr);
  assert.match(next.stdout.split('\n')[1], /^claude-sonnet-6 +anthropic .*\(inferred from claude-sonnet-5-5\)/);
  const usage = run(['models', 'a', 'b']);
  assert.equal(usage.status, 1);
  assert.match(run(['help', 'models']).stdout, /^usage: ctxpack models \[FILTER\] \[options\]/);
});
