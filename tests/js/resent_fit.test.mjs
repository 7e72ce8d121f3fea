// fitContext on a history sent again (Node, codec module): what the
// library's own resizer made of a payload is remembered (in the stash the
// fitting is made with), so the images it
// changed are not resized again; a caller's `resize` is called every time.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { makeImage } from '../fixtures/make.mjs';

const require = createRequire(import.meta.url);
const { Stash, fitContext } = require('ctxpack');

const part = (b64) => ({ type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: b64 } });
const history = (shots) => [
  ...shots.flatMap((b64, i) => [{ role: 'user', content: [part(b64), { type: 'text', text: `step ${i}` }] }, { role: 'assistant', content: 'noted' }]),
  { role: 'user', content: 'and now?' },
];

/** Counts the codec module's encodings from now on (it is loaded by the first fitting). */
function countEncodings() {
  const key = Object.keys(require.cache).find((k) => k.endsWith('codec/ctxpack_codec.js'));
  const codec = require.cache[key].exports;
  const real = codec.transcodeImage;
  const counter = { n: 0, restore: () => { codec.transcodeImage = real; } };
  codec.transcodeImage = (...args) => { counter.n++; return real(...args); };
  return counter;
}

test('a history sent again to fitContext is not resized again, and comes out the same', async () => {
  const shots = await Promise.all([601, 602, 603].map(async (seed) => (await makeImage('jpeg', 2400, 1600, seed)).toString('base64')));
  const messages = history(shots.slice(0, 2));
  // What is remembered is the stash's: the fittings are made with one.
  const stash = await Stash.open({ backend: 'memory' });
  const first = await fitContext(messages, { model: 'claude-sonnet-4-5', stash });
  assert.equal(first.report.images.filter((i) => i.action !== 'kept').length, 2);
  const counter = countEncodings();
  try {
    const again = await fitContext(messages, { model: 'claude-sonnet-4-5', stash });
    assert.equal(counter.n, 0, 'nothing resized again');
    assert.deepEqual(again.messages, first.messages);
    assert.deepEqual(again.report, first.report);
    // One more turn with a new photo: only it is resized.
    const next = history(shots);
    const third = await fitContext(next, { model: 'claude-sonnet-4-5', stash });
    assert.ok(counter.n >= 1);
    const before = counter.n;
    const fresh = await fitContext(structuredClone(next), { model: 'claude-sonnet-4-5', stash });
    assert.equal(counter.n, before, 'equal strings are found too');
    assert.deepEqual(third.messages, fresh.messages);
  } finally {
    counter.restore();
  }
});

test('a caller’s resize function is called every time', async () => {
  const shot = (await makeImage('jpeg', 2400, 1600, 611)).toString('base64');
  const messages = history([shot]);
  let calls = 0;
  const { codecResize } = require('ctxpack');
  const resize = async (image, target) => { calls++; return codecResize(image, target); };
  await fitContext(messages, { model: 'claude-sonnet-4-5', resize });
  const once = calls;
  assert.ok(once >= 1);
  await fitContext(messages, { model: 'claude-sonnet-4-5', resize });
  assert.equal(calls, 2 * once);
});
