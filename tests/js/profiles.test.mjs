// modelProfile through the package: each row's rules, family and provider
// fallbacks, and the same keys as the declaration promises.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { modelProfile } from 'ctxpack';

const dts = readFileSync(new URL('../../dist/node/ctxpack.d.ts', import.meta.url), 'utf8');
const declared = [...dts.match(/export interface ModelProfile \{([\s\S]*?)\n\}/)[1].matchAll(/^\s+(\w+)\??:/gm)].map((m) => m[1]);

test('a model id finds its row, its family, or its provider', () => {
  const opus = modelProfile('claude-opus-4-7');
  assert.deepEqual(opus.tokens, { kind: 'anthropic-pixels', longEdge: 2576, maxTokens: 4784 });
  assert.deepEqual([opus.manyImages, opus.manyImagesLongEdge, opus.maxImages, opus.maxImageBytes, opus.imageBytesOn], [20, 2000, 100, 5 * 1024 * 1024, 'base64']);
  assert.match(opus.source, /anthropic\.com.*read 2026/);
  assert.deepEqual(modelProfile('claude-sonnet-4-5').tokens, { kind: 'anthropic-pixels', longEdge: 1568, maxTokens: 1600 });
  assert.deepEqual(modelProfile('gpt-4.1-nano').tokens, { kind: 'openai-patches', multiplierMilli: 2460 });
  assert.deepEqual(modelProfile('gpt-4o-2024-11-20').tokens, { kind: 'openai-tiles', base: 85, perTile: 170 });
  assert.equal(modelProfile('gemini-3-pro-preview').tokens.kind, 'gemini-media-resolution');
  assert.equal(modelProfile('bedrock/anthropic.claude-sonnet-4-5-v1:0').provider, 'bedrock');
  assert.equal(modelProfile('some-local-model').matched, 'openai');
  assert.deepEqual(Object.keys(opus).sort(), [...declared].sort());
  assert.throws(() => modelProfile(7), (e) => e.code === 'INVALID_ARGUMENT' && e.path === 'modelId');
});

test('estimate with a model applies its formula, its many-image rule and its byte measure', async () => {
  const { estimate } = await import('ctxpack');
  const { makeImage } = await import('../fixtures/make.mjs');
  const shot = (await makeImage('png', 3000, 1900, 120)).toString('base64');
  const part = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: shot } };
  const screenshots = (n) => [{ role: 'user', content: Array.from({ length: n }, () => part) }];
  const few = estimate(screenshots(20), { model: 'claude-sonnet-4-5' });
  assert.equal(few.provider, 'anthropic');
  // Scaled to a 1568-px long edge, then to ~1,600 tokens (Opus 4.7: 2576 px,
  // 4,784 tokens), as the vision docs say; then w·h/750.
  const claude = (w, h, edge, cap) => {
    let s = Math.min(1, edge / Math.max(w, h));
    const area = w * s * h * s;
    if (area > cap * 750) s *= Math.sqrt((cap * 750) / area);
    return s >= 1 ? Math.ceil((w * h) / 750) : Math.ceil((Math.floor(w * s) * Math.floor(h * s)) / 750);
  };
  assert.equal(few.images[0].tokens, claude(3000, 1900, 1568, 1600));
  assert.ok(!few.exceeded.some((e) => e.includes('more than 20 images')), few.exceeded.join('\n'));
  const many = estimate(screenshots(25), { model: 'claude-sonnet-4-5' });
  assert.equal(many.exceeded.filter((e) => e.includes('with more than 20 images anthropic allows 2000 px per side')).length, 25);
  assert.equal(many.images[0].bytes, shot.length, "Anthropic's 5 MB is measured on the base64");
  const opus = estimate(screenshots(1), { model: 'claude-opus-4-7' });
  assert.equal(opus.images[0].tokens, claude(3000, 1900, 2576, 4784));
  const nano = estimate([{ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${shot}` } }] }], { model: 'gpt-4.1-nano' });
  assert.equal(nano.provider, 'openai');
  // OpenAI's patch rule, as the vision guide writes it: shrink to at most
  // 1536 patches of 32 px, then to whole patches along one side; × 2.46.
  const patches = (w, h) => {
    if (Math.ceil(w / 32) * Math.ceil(h / 32) <= 1536) return Math.ceil(w / 32) * Math.ceil(h / 32);
    const shrink = Math.sqrt((32 * 32 * 1536) / (w * h));
    const adjust = Math.min(Math.floor((w * shrink) / 32) / ((w * shrink) / 32), Math.floor((h * shrink) / 32) / ((h * shrink) / 32));
    return Math.min(1536, Math.ceil((w * shrink * adjust) / 32) * Math.ceil((h * shrink * adjust) / 32));
  };
  assert.equal(nano.images[0].tokens, Math.ceil(patches(3000, 1900) * 2.46));
  assert.equal(estimate(screenshots(1), { provider: 'anthropic' }).images[0].tokens, few.images[0].tokens);
});
