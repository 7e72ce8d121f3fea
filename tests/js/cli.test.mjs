// The command line, run as a user runs it: files in, files out, exit codes.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../../scripts/serve.mjs';
import { makeImage } from '../fixtures/make.mjs';

const bin = path.join(ROOT, 'bin/ctxpack.cjs');
const run = (args, cwd) => spawnSync(process.execPath, [bin, ...args], { cwd, encoding: 'utf8' });

async function workspace(images = 3) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ctxpack-cli-'));
  const messages = [];
  for (let i = 0; i < images; i++) {
    const b64 = (await makeImage('png', 24, 24, 50 + i)).toString('base64');
    messages.push({ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${b64}` } }, { type: 'text', text: `image ${i}` }] });
    messages.push({ role: 'assistant', content: `seen ${i}` });
  }
  messages.push({ role: 'user', content: 'compare them' });
  writeFileSync(path.join(dir, 'in.json'), JSON.stringify({ model: 'gpt-x', messages }));
  return { dir, messages };
}

test('compact then expand round-trips through the file stash', async () => {
  const { dir, messages } = await workspace(9);
  try {
    const c = run(['compact', 'in.json', '-o', 'out.json', '--stash-dir', 'stash'], dir);
    assert.equal(c.status, 0, c.stderr);
    assert.match(c.stderr, /hashed 9\/9 images/, 'progress on stderr');
    assert.match(c.stderr, /9 images stashed/);
    const out = JSON.parse(readFileSync(path.join(dir, 'out.json'), 'utf8'));
    assert.equal(out.model, 'gpt-x', 'the request body shape is kept');
    assert.match(out.messages[0].content[0].text, /^\[Picture:history_[0-9a-f]{32}\]$/);
    assert.equal(readdirSync(path.join(dir, 'stash')).length, 18);
    const e = run(['expand', 'out.json', '--stash-dir', 'stash'], dir);
    assert.equal(e.status, 0, e.stderr);
    assert.deepEqual(JSON.parse(e.stdout).messages, messages);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('stats accounts per provider and exits 4 when a limit is exceeded', async () => {
  const { dir } = await workspace(21);
  try {
    const s = run(['stats', 'in.json'], dir);
    assert.equal(s.status, 4);
    assert.match(s.stdout, /images: 21/);
    assert.match(s.stdout, /bedrock .*EXCEEDS: 21 images; bedrock allows 20/);
    assert.match(s.stdout, /openai .*within limits/);
    assert.equal(run(['stats', 'in.json', '--provider', 'openai'], dir).status, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('clear errors and documented exit codes', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ctxpack-cli-'));
  try {
    assert.equal(run([], dir).status, 0);
    const usage = run(['compact'], dir);
    assert.equal(usage.status, 1);
    assert.match(usage.stderr, /missing input file/);
    assert.equal(run(['shrink', 'x.json'], dir).status, 1);
    assert.equal(run(['compact', 'x.json', '--keep-recent', 'many'], dir).status, 1);
    const missing = run(['compact', 'nope.json'], dir);
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /cannot read nope\.json/);
    writeFileSync(path.join(dir, 'bad.json'), '{"messages": [');
    assert.match(run(['compact', 'bad.json'], dir).stderr, /not JSON/);
    writeFileSync(path.join(dir, 'shape.json'), JSON.stringify([{ role: 'user', content: [{ type: 'image_url', image_url: { url: 5 } }] }]));
    const shape = run(['compact', 'shape.json'], dir);
    assert.equal(shape.status, 2);
    assert.match(shape.stderr, /INVALID_MESSAGE at messages\[0\]\.content\[0\]\.image_url\.url/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
