// fitContext over a session, the app re-sending its originals each turn:
// an image resized once is resized the same way on every later turn, and
// history images leave in batches, so a turn changes the request only at
// its end between the batches.
import test from 'node:test';
import assert from 'node:assert/strict';
import { Stash, fitContext } from 'ctxpack';
import { makeImage } from '../fixtures/make.mjs';

const TURNS = 7;

/** One 2000×1500 photo a turn (larger than Claude reads: each is downscaled). */
const photos = await Promise.all(Array.from({ length: TURNS }, (_, i) => makeImage('jpeg', 2000, 1500, i + 1).then((b) => b.toString('base64'))));

/** The request of turn `i` in Anthropic's format. */
function request(i) {
  const messages = [];
  for (let t = 0; t <= i; t++) {
    messages.push({ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: photos[t] } }, { type: 'text', text: `photo ${t}` }] });
    if (t < i) messages.push({ role: 'assistant', content: `noted ${t}` });
  }
  return messages;
}

test('fitContext: every history image comes back resized the same way on later turns, and stashing moves in batches', async () => {
  const stash = await Stash.open({ backend: 'memory' });
  // A limit of 4 images, a batch of 2 (half of it to spare).
  const options = { model: 'claude-sonnet-4-5', stash, limits: { maxImages: 4 }, slack: { headroom: 0.5 } };
  let previous = null;
  let moved = 0;
  for (let i = 0; i < TURNS; i++) {
    const { messages, report } = await fitContext(request(i), options);
    assert.equal(report.fits, true);
    assert.ok(report.imagesAfter <= 4);
    const sent = messages.map((m) => JSON.stringify(m));
    if (previous) {
      const kept = previous.newest;
      const same = sent.slice(0, kept).every((m, k) => m === previous.sent[k]);
      if (!same) {
        moved++;
        // A turn that moves the prefix stashed an image for the first time, and says where.
        assert.notEqual(report.firstChangedIndex, null, `turn ${i}: ${JSON.stringify({ ...report, images: report.images.map((x) => [x.path, x.action, x.id]) })}`);
        assert.ok(sent.slice(0, report.firstChangedIndex).every((m, k) => m === previous.sent[k]), `turn ${i}: nothing before message ${report.firstChangedIndex} moved`);
      } else {
        assert.ok(report.firstChangedIndex === null || report.firstChangedIndex >= kept, `turn ${i}`);
      }
      // Every image still inline in both requests was resized to the same bytes.
      for (let k = 0; k < kept; k++) {
        const before = JSON.parse(previous.sent[k]).content?.[0]?.source?.data;
        const after = JSON.parse(sent[k]).content?.[0]?.source?.data;
        if (before && after) assert.equal(after, before, `turn ${i}: message ${k}'s image is resized as before`);
      }
    }
    // The newest photo is downscaled too (fitContext's documented rule for the newest turn).
    assert.equal(report.images.at(-1).action, 'downscaled');
    previous = { sent, newest: messages.length - 1 };
  }
  // Over 4 images from the fifth turn on, 2 leave at once: turns 5 and 7 move.
  assert.equal(moved, 2);
});
