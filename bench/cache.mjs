// The prompt-cache rows of `npm run bench`: sessions an app really runs —
// one new screenshot a turn, the app re-sending its originals every turn —
// compacted as a turn is sent, counting the turns whose request keeps the
// previous request's prefix, the images each request carries, and what the
// input costs at Anthropic's published prices for the session's model (a
// 5-minute cache write at 1.25× the input price, a read at 0.1×), each slack
// against `slack: false` (one image a turn) in the same run. Counts and
// ratios, never times.
//
//   window  40 turns, one new ~1 MB PNG a turn, keepRecentImages: 3, on
//           claude-sonnet-5-5 ($2 a million input tokens)
//   limit   150 turns, one new 1280×800 screenshot a turn, against
//           claude-haiku-4-5's 100-image limit (keepRecentImages: 1000,
//           $1 a million input tokens), counted from turn 100

import { SIZES } from './sizes.mjs';

/** Each session's model and its prices, in dollars a million tokens (platform.claude.com/docs/en/models/sonnet-5/overview for Sonnet 5 and 5.5, read 2026-12-06). */
const MODELS = {
  window: { model: 'claude-sonnet-5-5', price: { input: 2, write: 2.5, read: 0.2 } },
  limit: { model: 'claude-haiku-4-5', price: { input: 1, write: 1.25, read: 0.1 } },
};

/**
 * A session of `turns` turns: each a user message with a screenshot (from
 * `shots`, one a turn) and a line of text, then the assistant's answer.
 * `request(i)` is the request of turn `i`: every turn up to it, ending with
 * its user message.
 */
function session(shots, turns) {
  const messages = [];
  for (let i = 0; i < turns; i++) {
    const shot = shots[i % shots.length];
    messages.push(
      { role: 'user', content: [{ type: 'text', text: `Step ${i}: here is the screen now. What should I click?` }, { type: 'image_url', image_url: { url: `data:${shot.mime};base64,${shot.b64}` } }] },
      { role: 'assistant', content: `Click the button in the top right corner of window ${i}, then wait for the dialog.` },
    );
  }
  return (i) => messages.slice(0, 2 * i + 1);
}

/**
 * The tokens of each message of `messages` (serialized as `serialized`) as
 * `model` counts them; a message serialized as it was in the previous
 * request (`previous`) keeps its count.
 */
function tokensOf(ctx, model, messages, serialized, previous) {
  return messages.map((m, k) =>
    previous && serialized[k] === previous.serialized[k]
      ? previous.tokens[k]
      : ctx.estimate([m], { model, format: 'openai' }).totalTokens);
}

/**
 * Runs a session through compactContext with `options` and measures each
 * turn from `from`: whether it keeps the prefix (every message the previous
 * request held before its newest turn comes back the same), the images it
 * sends, and its input cost with a cache breakpoint at the end of each
 * request (the prefix it shares with the previous request read from the
 * cache, the rest written to it).
 */
async function run(ctx, request, turns, from, { model, price }, options) {
  const stash = await ctx.Stash.open({ backend: 'memory' });
  let previous = null;
  const out = { turns: 0, kept: 0, images: 0, cost: 0, uncachedCost: 0, firstChanged: [] };
  for (let i = 0; i < turns; i++) {
    const { messages, report } = await ctx.compactContext(request(i), { stash, ...options });
    const serialized = messages.map((m) => JSON.stringify(m));
    const tokens = tokensOf(ctx, model, messages, serialized, previous);
    if (i >= from && previous) {
      out.turns++;
      const newest = previous.newest;
      if (serialized.slice(0, newest).every((m, k) => m === previous.serialized[k])) out.kept++;
      let shared = 0;
      while (shared < previous.serialized.length && serialized[shared] === previous.serialized[shared]) shared++;
      const cached = previous.tokens.slice(0, shared).reduce((a, b) => a + b, 0);
      const total = tokens.reduce((a, b) => a + b, 0);
      out.cost += (cached * price.read + (total - cached) * price.write) / 1e6;
      out.uncachedCost += (total * price.input) / 1e6;
      out.images += report.kept;
      if (report.firstChangedIndex !== null) out.firstChanged.push(report.firstChangedIndex);
    }
    previous = { serialized, tokens, newest: report.newestUserIndex ?? 0 };
  }
  stash.close?.();
  return out;
}

/** The cache rows: each session under each slack; prints them and returns the figures. */
export async function benchCache(ctx, { imageOfSize, makeScreenshot }) {
  // The window session: noisy PNGs of about 1 MB (~870 px a side), one a
  // turn, all different. The limit session: 1280×800 PNG screenshots of a
  // page of text (an agent's browser), 150 different ones.
  // (BENCH_SMOKE: a few turns of small images.)
  const { window: windowTurns, limit: limitTurns, limitFrom, imageB64, screen } = SIZES.cache;
  const shots = [];
  for (let i = 0; i < windowTurns; i++) shots.push(await imageOfSize(imageB64, 7000 + i, 'png'));
  const pages = [];
  for (let i = 0; i < limitTurns; i++) pages.push({ mime: 'image/png', b64: (await makeScreenshot(...screen, i + 1)).toString('base64') });
  const slacks = [['false (one image a turn)', false], ['{images: 4}', { images: 4 }], ['default {images: 8, headroom: 0.2}', undefined], ['{images: 16}', { images: 16 }]];
  const result = {};
  const print = (title, rows) => {
    console.log(`\n${title}`);
    console.log('  slack                                keeps the prefix   images a request   input cost   ÷ slack: false');
    const base = rows[0][1].cost;
    for (const [label, r] of rows) {
      const keep = `${r.kept} of ${r.turns} (${Math.round((100 * r.kept) / r.turns)} %)`;
      console.log(`  ${label.padEnd(36)} ${keep.padStart(16)}   ${(r.images / r.turns).toFixed(1).padStart(16)}   $${r.cost.toFixed(3).padStart(8)}   ${(r.cost / base).toFixed(2).padStart(10)}`);
    }
  };

  const windowRows = [];
  const windowSession = session(shots, windowTurns);
  for (const [label, slack] of slacks) windowRows.push([label, await run(ctx, windowSession, windowTurns, 1, MODELS.window, { keepRecentImages: 3, slack })]);
  print(`prompt cache, window: ${windowTurns} turns, one new ~1 MB screenshot a turn, keepRecentImages: 3 (claude-sonnet-5-5 prices, a breakpoint at each request's end)`, windowRows);
  result.window = Object.fromEntries(windowRows.map(([label, r]) => [label, r]));

  const limitRows = [];
  const limitSession = session(pages, limitTurns);
  for (const [label, slack] of [slacks[0], slacks[2]]) {
    limitRows.push([label, await run(ctx, limitSession, limitTurns, limitFrom, MODELS.limit, { keepRecentImages: 1000, model: MODELS.limit.model, slack })]);
  }
  print(`prompt cache, limit: ${limitTurns} turns against claude-haiku-4-5's 100 images (its prices), counted from turn ${limitFrom}`, limitRows);
  const [, exact] = limitRows[0];
  const [, stepped] = limitRows[1];
  console.log(`  input cost with the steps ÷ without: ${(stepped.cost / exact.cost).toFixed(2)}; without any cache the same turns would cost $${exact.uncachedCost.toFixed(3)}`);
  result.limit = Object.fromEntries(limitRows.map(([label, r]) => [label, r]));
  return result;
}
