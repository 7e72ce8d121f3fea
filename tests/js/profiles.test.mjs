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
  assert.deepEqual(opus.tokens, { kind: 'anthropic-pixels', longEdge: 2576 });
  assert.deepEqual([opus.manyImages, opus.manyImagesLongEdge, opus.maxImages, opus.maxImageBytes, opus.imageBytesOn], [20, 2000, 100, 5 * 1024 * 1024, 'base64']);
  assert.match(opus.source, /anthropic\.com.*read 2026/);
  assert.deepEqual(modelProfile('claude-sonnet-4-5').tokens, { kind: 'anthropic-pixels', longEdge: 1568 });
  assert.deepEqual(modelProfile('gpt-4.1-nano').tokens, { kind: 'openai-patches', multiplierMilli: 2460 });
  assert.deepEqual(modelProfile('gpt-4o-2024-11-20').tokens, { kind: 'openai-tiles', base: 85, perTile: 170 });
  assert.equal(modelProfile('gemini-3-pro-preview').tokens.kind, 'gemini-media-resolution');
  assert.equal(modelProfile('bedrock/anthropic.claude-sonnet-4-5-v1:0').provider, 'bedrock');
  assert.equal(modelProfile('some-local-model').matched, 'openai');
  assert.deepEqual(Object.keys(opus).sort(), [...declared].sort());
  assert.throws(() => modelProfile(7), (e) => e.code === 'INVALID_ARGUMENT' && e.path === 'modelId');
});
