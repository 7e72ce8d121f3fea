// The offload rows of `npm run bench`: a computer-use session an agent
// really runs — 50 turns, one new ~1.5 MB screenshot a turn, the last 5
// kept for the model (`keepRecentImages: 5`, `slack: false`), in the
// Responses format —
// compacted as each turn is sent, with and without `offload`. The upload
// function stands in for the app's (`openai.files.create`): it answers at
// once and counts. Counts and bytes, never times.

import { SIZES } from './sizes.mjs';

/**
 * A session of `turns` turns: each a user message with a screenshot (one
 * a turn) and a line of text, then the assistant's answer. `request(i)` is
 * the request of turn `i`: every turn up to it, ending with its user
 * message.
 */
function session(shots, turns) {
  const messages = [];
  for (let i = 0; i < turns; i++) {
    const shot = shots[i % shots.length];
    messages.push(
      { role: 'user', content: [{ type: 'input_text', text: `Step ${i}: here is the screen now. What should I click?` }, { type: 'input_image', image_url: `data:${shot.mime};base64,${shot.b64}`, detail: 'auto' }] },
      { role: 'assistant', content: [{ type: 'output_text', text: `Click the button in the top right corner of window ${i}, then wait for the dialog.` }] },
    );
  }
  return (i) => messages.slice(0, 2 * i + 1);
}

/**
 * Runs the session through compactContext with `offload` (or without):
 * per turn, the request's bytes (its JSON) and what was uploaded.
 */
async function run(ctx, request, turns, offload) {
  const stash = await ctx.Stash.open({ backend: 'memory' });
  const out = { requestBytes: [], uploads: 0, uploadedBytes: 0, uploadedPerTurn: [], offloaded: 0 };
  let files = 0;
  const upload = async ({ bytes }) => {
    out.uploads++;
    out.uploadedBytes += bytes;
    return { id: `file-${++files}`, expiresAt: Date.now() + 30 * 24 * 3600 * 1000 };
  };
  for (let i = 0; i < turns; i++) {
    const before = out.uploadedBytes;
    const { messages, report } = await ctx.compactContext(request(i), {
      stash,
      format: 'openai-responses',
      keepRecentImages: 5,
      // Exactly the last 5: no slack kept for the prompt cache.
      slack: false,
      ...(offload ? { offload: { upload } } : {}),
    });
    out.requestBytes.push(Buffer.byteLength(JSON.stringify(messages)));
    out.uploadedPerTurn.push(out.uploadedBytes - before);
    out.offloaded += report.offloaded;
  }
  stash.free();
  return out;
}

const MB = 1024 * 1024;
const sum = (xs) => xs.reduce((a, b) => a + b, 0);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The offload rows: the session with and without offload; prints them and returns the figures. */
export async function benchOffload(ctx, { imageOfSize }) {
  // 50 turns (BENCH_SMOKE: a few, of small images).
  const { turns, imageB64 } = SIZES.offload;
  const shots = [];
  // 1.5 MB a PNG: its base64 is 4/3 of that.
  for (let i = 0; i < turns; i++) shots.push(await imageOfSize(imageB64, 9100 + i, 'png'));
  const request = session(shots, turns);
  const inline = await run(ctx, request, turns, false);
  const offloaded = await run(ctx, request, turns, true);
  // From turn 6 on a request holds 5 history images and the new one.
  const steady = (r) => r.requestBytes.slice(6);
  const sent = (r) => sum(r.requestBytes) + r.uploadedBytes;
  console.log(`\noffload, computer use: ${turns} turns, one new ~1.5 MB screenshot a turn, keepRecentImages: 5, slack: false (openai-responses)`);
  console.log('                           request a turn (median, from turn 6)   all requests   uploads   uploaded   requests + uploads');
  for (const [label, r] of [['inline (no offload)', inline], ['offload', offloaded]]) {
    console.log(`  ${label.padEnd(24)} ${(median(steady(r)) / MB).toFixed(2).padStart(21)} MB ${(sum(r.requestBytes) / MB).toFixed(1).padStart(17)} MB ${String(r.uploads).padStart(9)} ${(r.uploadedBytes / MB).toFixed(1).padStart(8)} MB ${(sent(r) / MB).toFixed(1).padStart(17)} MB`);
  }
  const ratio = median(steady(inline)) / median(steady(offloaded));
  console.log(`  a request with offload is ${ratio.toFixed(1)}× smaller; all bytes sent ÷ inline: ${(sent(offloaded) / sent(inline)).toFixed(2)}; each screenshot uploaded ${(offloaded.uploads / (turns - 1)).toFixed(2)} times`);
  return {
    turns,
    inline: { medianRequestBytes: median(steady(inline)), requestBytes: sum(inline.requestBytes), uploads: inline.uploads },
    offload: {
      medianRequestBytes: median(steady(offloaded)),
      requestBytes: sum(offloaded.requestBytes),
      uploads: offloaded.uploads,
      uploadedBytes: offloaded.uploadedBytes,
      offloadedParts: offloaded.offloaded,
    },
    requestRatio: ratio,
  };
}
