// A long caller text (a tool's JSON result, a pasted document) is copied
// into wasm by the engine's TextEncoder.encodeInto when it is ASCII, not
// character by character; any other text takes the generic copy, and both
// read exactly the caller's text.
import test from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { makeNoisePng } from '../fixtures/make.mjs';

// Counts what the encoder is asked to copy (installed before ctxpack loads).
import { copied as encoded } from './support/copies.mjs';
const { Stash, compactContext } = await import('ctxpack');

const history = (toolText) => [
  { role: 'user', content: 'take a screenshot' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'screenshot', arguments: '{}' } }] },
  { role: 'tool', tool_call_id: 'c1', content: toolText },
  { role: 'assistant', content: 'done' },
  { role: 'user', content: 'and now?' },
];

test('a long ASCII tool result is copied by the engine, and a long one with other letters reads the same after the generic copy', async () => {
  const b64 = (await makeNoisePng(200, 200, 11)).toString('base64');
  const md5 = crypto.hash('md5', b64);
  const stash = await Stash.open({ backend: 'memory' });
  for (const caption of ['plain', 'café ☕ 𝄞 naïve']) {
    const text = JSON.stringify({ success: true, caption, imageBase64: b64 });
    const before = encoded.length;
    const { messages, report } = await compactContext(history(text), { stash, sanitizeToolResults: true });
    const copies = encoded.slice(before).filter((n) => n === text.length).length;
    // ASCII: one copy of the whole text by encodeInto. Otherwise the
    // encoder is asked once and gives up at the first other letter.
    assert.equal(copies, 1, caption);
    assert.equal(report.binariesStashed, 1);
    const sanitized = JSON.parse(messages[2].content);
    assert.equal(sanitized.caption, caption);
    assert.equal(sanitized.success, true);
    assert.match(sanitized.imageBase64, new RegExp(`^\\[Binary:history_${md5} image/png `));
  }
});
