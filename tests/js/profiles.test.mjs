// modelProfile through the package: each row's rules, family and provider
// fallbacks, and the same keys as the declaration promises.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { modelProfile, registerModelProfile, estimate, fitContext, compactContext, Stash } from 'ctxpack';
import sharp from 'sharp';
import { makeImage } from '../fixtures/make.mjs';

const dts = readFileSync(new URL('../../dist/node/ctxpack.d.ts', import.meta.url), 'utf8');
const declared = [...dts.match(/export interface ModelProfile \{([\s\S]*?)\n\}/)[1].matchAll(/^\s+(\w+)\??:/gm)].map((m) => m[1]);

test('a model id finds its row, its family, or its provider', () => {
  const opus = modelProfile('claude-opus-4-7');
  assert.deepEqual(opus.tokens, { kind: 'anthropic-patches', patch: 28, longEdge: 2576, maxTokens: 4784 });
  // Opus 4.7 has a 1M-token window: 600 images per request (100 with 200k).
  assert.deepEqual([opus.manyImages, opus.manyImagesLongEdge, opus.maxImages, opus.maxImageBytes, opus.imageBytesOn], [20, 2000, 600, 5 * 1024 * 1024, 'base64']);
  assert.equal(modelProfile('claude-haiku-4-5').maxImages, 100);
  assert.match(opus.source, /claude\.com.*read 2026-12-06/);
  assert.deepEqual(modelProfile('claude-sonnet-4-5').tokens, { kind: 'anthropic-pixels', longEdge: 1568, maxTokens: 1600, pixelsPerToken: 750 });
  assert.deepEqual(modelProfile('gpt-4.1-nano').tokens, { kind: 'openai-patches', multiplierMilli: 2460, patch: 32, maxPatches: 1536 });
  assert.deepEqual(modelProfile('gpt-4o-2024-11-20').tokens, { kind: 'openai-tiles', base: 85, perTile: 170, tile: 512, fitBox: 2048, shortestSide: 768, lowBox: 512 });
  assert.deepEqual(modelProfile('gemini-2.5-pro').tokens, { kind: 'gemini-tiles', perTile: 258, tile: 768, smallSide: 384 });
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
  // Scaled to a 1568-px long edge, then to ~1,600 tokens, as the vision
  // docs say for models before Opus 4.7; then w·h/750.
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
  // From Opus 4.7 on: the long edge to 2576 px, then to at most 4,784
  // patches of 28 px (whole patches along one side), ⌈w/28⌉×⌈h/28⌉.
  const claudePatches = (w, h) => {
    const s = Math.min(1, 2576 / Math.max(w, h));
    const [w1, h1] = [w * s, h * s];
    let t = s;
    if (Math.ceil(w1 / 28) * Math.ceil(h1 / 28) > 4784) {
      const shrink = Math.sqrt((28 * 28 * 4784) / (w1 * h1));
      const [sw, sh] = [(w1 * shrink) / 28, (h1 * shrink) / 28];
      t = s * shrink * Math.min(Math.floor(sw) / sw, Math.floor(sh) / sh);
    }
    return Math.min(4784, Math.ceil(Math.floor(w * t) / 28) * Math.ceil(Math.floor(h * t) / 28));
  };
  const opus = estimate(screenshots(1), { model: 'claude-opus-4-7' });
  assert.equal(opus.images[0].tokens, claudePatches(3000, 1900));
  assert.equal(claudePatches(3000, 1900), 86 * 55);
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

test('each profile names the image types its model takes and its default detail', () => {
  const gpt = modelProfile('gpt-5');
  assert.deepEqual(gpt.accepts, ['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
  assert.equal(gpt.acceptsAnimated, false);
  assert.equal(gpt.defaultDetail, 'auto');
  assert.deepEqual(modelProfile('gemini-2.5-flash').accepts, ['image/png', 'image/jpeg', 'image/webp', 'image/heic', 'image/heif']);
  assert.equal(modelProfile('gemini-3-pro-preview').defaultDetail, 'high');
  assert.equal(modelProfile('claude-sonnet-4-5').defaultDetail, null);
  // Each platform its own limits.
  const bedrock = modelProfile('bedrock/anthropic.claude-sonnet-4-6');
  assert.deepEqual([bedrock.provider, bedrock.maxImages, bedrock.maxImageBytes, bedrock.maxRequestBytes], ['bedrock', 20, 5 * 1024 * 1024, 20 * 1024 * 1024]);
  const vertex = modelProfile('claude-sonnet-4-5@20250929');
  assert.deepEqual([vertex.provider, vertex.maxImageBytes, vertex.maxRequestBytes], ['vertex', 5 * 1024 * 1024, null]);
});

test('Gemini 3 counts each part at its own media resolution, else at high', async () => {
  const data = (await makeImage('png', 1600, 1200, 5)).toString('base64');
  const part = (extra) => ({ inlineData: { mimeType: 'image/png', data }, ...extra });
  const contents = [{ role: 'user', parts: [part({}), part({ mediaResolution: { level: 'MEDIA_RESOLUTION_LOW' } }), part({ media_resolution: 'media_resolution_medium' }), { text: 'compare' }] }];
  const r = estimate(contents, { model: 'gemini-3-pro-preview' });
  assert.deepEqual(r.images.map((i) => i.tokens), [1120, 280, 560]);
  // The default is data: a profile that reads images at low detail.
  const low = estimate(contents, { model: 'gemini-3-pro-preview', profile: { defaultDetail: 'low' } });
  assert.deepEqual(low.images.map((i) => i.tokens), [280, 280, 560]);
});

test('registerModelProfile adds a model ctxpack does not know, matched before the table', async () => {
  assert.equal(modelProfile('acme-vision-2').provider, 'openai');
  const p = registerModelProfile('Acme-Vision', {
    provider: 'anthropic',
    tokens: { kind: 'anthropic-pixels', longEdge: 1000, maxTokens: 1000, pixelsPerToken: 500 },
    maxImages: 3,
    maxLongEdge: 1200,
    accepts: ['image/png', 'image/jpeg'],
    source: 'acme docs, read 2026-11-25',
  });
  assert.equal(p.matched, 'acme-vision');
  assert.deepEqual(modelProfile('openrouter/acme-vision-2'), p);
  assert.deepEqual(p.tokens, { kind: 'anthropic-pixels', longEdge: 1000, maxTokens: 1000, pixelsPerToken: 500 });
  assert.deepEqual([p.provider, p.imageBytesOn, p.manyImagesLongEdge, p.source], ['anthropic', 'base64', 2000, 'acme docs, read 2026-11-25']);
  // estimate and fitContext use it: 1000 px long edge, 500 pixels per token.
  const png = await makeImage('png', 2000, 1000, 7);
  const messages = [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: png.toString('base64') } }, { type: 'text', text: 'what is it?' }] }];
  assert.equal(estimate(messages, { model: 'acme-vision-2' }).images[0].tokens, (1000 * 500) / 500);
  const stash = await Stash.open({ backend: 'memory' });
  const { messages: out, report } = await fitContext(messages, { model: 'acme-vision-2', stash });
  assert.equal(report.model, 'acme-vision');
  const meta = await sharp(Buffer.from(out[0].content[0].source.data, 'base64')).metadata();
  assert.deepEqual([meta.width, meta.height], [1000, 500]);
  // A built-in row can be replaced too; registering again replaces.
  registerModelProfile('gpt-4o-2099', { maxImages: 7 });
  assert.deepEqual([modelProfile('gpt-4o-2099-01-01').maxImages, modelProfile('gpt-4o').maxImages], [7, 500]);
  registerModelProfile('gpt-4o-2099', { maxImages: 8 });
  assert.equal(modelProfile('gpt-4o-2099').maxImages, 8);
});

test('a whole profile passed to fitContext or estimate, and every bad field refused at its path', async () => {
  const png = await makeImage('png', 1800, 900, 9);
  const messages = [{ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } }, { type: 'text', text: 'and this?' }] }];
  const whole = { provider: 'openai', tokens: { kind: 'openai-tiles', base: 10, perTile: 100, tile: 256, fitBox: 1024, shortestSide: 512 }, maxLongEdge: 1024 };
  // 1800×900 → 1024×512 → 4×2 tiles of 256.
  assert.equal(estimate(messages, { model: 'in-house-vlm', profile: whole }).images[0].tokens, 10 + 8 * 100);
  const stash = await Stash.open({ backend: 'memory' });
  const { messages: out, report } = await fitContext(messages, { model: 'in-house-vlm', profile: whole, stash });
  assert.equal(report.model, 'in-house-vlm');
  const meta = await sharp(Buffer.from(out[0].content[0].image_url.url.split(',')[1], 'base64')).metadata();
  assert.ok(Math.max(meta.width, meta.height) <= 1024, `${meta.width}×${meta.height}`);
  const refused = (f, code, path) => assert.throws(f, (e) => e.name === 'CtxpackError' && e.code === code && e.path === path, `${code} at ${path}`);
  const rejects = (p, code, path) => assert.rejects(p, (e) => e.code === code && e.path === path);
  refused(() => estimate(messages, { model: 'gpt-4o', profile: { maxImagez: 1 } }), 'INVALID_OPTION', 'options.profile.maxImagez');
  refused(() => estimate(messages, { model: 'gpt-4o', profile: { tokens: { kind: 'gemini-tiles', tile: 0 } } }), 'INVALID_OPTION', 'options.profile.tokens.tile');
  refused(() => estimate(messages, { model: 'gpt-4o', profile: { accepts: ['image/svg+xml'] } }), 'INVALID_OPTION', 'options.profile.accepts');
  refused(() => estimate(messages, { model: 'gpt-4o', profile: 'gpt-4o' }), 'INVALID_OPTION', 'options.profile');
  await rejects(fitContext(messages, { model: 'gpt-4o', profile: { provider: 'mistral' } }), 'INVALID_OPTION', 'options.profile.provider');
  await rejects(fitContext(messages, { model: 'gpt-4o', profile: { tokens: { kind: 'anthropic-pixels', longEdge: 1568 } } }), 'INVALID_OPTION', 'options.profile.tokens');
  refused(() => registerModelProfile('x', { defaultDetail: 'max' }), 'INVALID_ARGUMENT', 'profile.defaultDetail');
  refused(() => registerModelProfile('x', { maxImages: -1 }), 'INVALID_ARGUMENT', 'profile.maxImages');
  refused(() => estimate(messages, { model: 'gpt-4o', profile: { maxRequestBytes: '20MB' } }), 'INVALID_OPTION', 'options.profile.maxRequestBytes');
  refused(() => registerModelProfile('x', { tokens: { kind: 'openai-patches', multiplierMilli: 1000, patch: 0 } }), 'INVALID_ARGUMENT', 'profile.tokens.patch');
  refused(() => registerModelProfile('', {}), 'INVALID_ARGUMENT', 'modelId');
  refused(() => registerModelProfile(7, {}), 'INVALID_ARGUMENT', 'modelId');
  refused(() => registerModelProfile('x', null), 'INVALID_ARGUMENT', 'profile');
  assert.equal(modelProfile('x').provider, 'openai', 'nothing registered by a refused call');
});

test('every call names its target the same way: a model id with profile and limits, or an older provider shape', async () => {
  const image = async (seed) => ({ type: 'image_url', image_url: { url: `data:image/png;base64,${(await makeImage('png', 64, 48, seed)).toString('base64')}` } });
  const messages = [
    { role: 'user', content: [await image(31), { type: 'text', text: 'first' }] },
    { role: 'assistant', content: 'seen' },
    { role: 'user', content: [await image(32), { type: 'text', text: 'and this?' }] },
  ];
  // `limits` over a model id: estimate, fitContext and compactContext alike.
  assert.deepEqual(estimate(messages, { model: 'gpt-4o', limits: { maxImages: 1 } }).exceeded, ['2 images; openai allows 1 per request']);
  const fitted = await fitContext(messages, { model: 'gpt-4o', limits: { maxImages: 1 }, stash: await Stash.open({ backend: 'memory' }) });
  assert.deepEqual([fitted.report.fits, fitted.report.imagesAfter, fitted.report.stashed], [true, 1, 1]);
  const unlimited = await fitContext(messages, { model: 'gpt-4o', stash: await Stash.open({ backend: 'memory' }) });
  assert.deepEqual([unlimited.report.imagesAfter, unlimited.report.stashed], [2, 0]);
  // The older shapes: `{provider, …}` as the model, and `provider` with limits beside it.
  const older = estimate(messages, { model: { provider: 'bedrock', maxImages: 1 } });
  assert.deepEqual([older.provider, older.limits.maxImages], ['bedrock', 1]);
  const beside = estimate(messages, { provider: 'gemini', maxImages: 1, limits: { maxRequestBytes: 10 } });
  assert.deepEqual([beside.provider, beside.limits.maxImages, beside.limits.maxRequestBytes], ['gemini', 1, 10]);
  const byProvider = await fitContext(messages, { provider: 'anthropic', stash: await Stash.open({ backend: 'memory' }) });
  assert.equal(byProvider.report.provider, 'anthropic');
  const compacted = await compactContext(messages, { stash: await Stash.open({ backend: 'memory' }), keepRecentImages: 5, provider: 'openai', maxImages: 1 });
  assert.equal(compacted.report.limitStashed, 1);
  // Each refusal at the option that names the target.
  const refused = (f, path) => assert.throws(f, (e) => e.code === 'INVALID_OPTION' && e.path === path, path);
  refused(() => estimate(messages, {}), 'options.model');
  refused(() => estimate(messages, { model: 7 }), 'options.model');
  refused(() => estimate(messages, { model: { maxImages: 1 } }), 'options.model.provider');
  await assert.rejects(fitContext(messages, { model: { provider: 'mistral' } }), (e) => e.code === 'INVALID_OPTION' && e.path === 'options.model.provider');
  await assert.rejects(fitContext(messages, { provider: 'mistral' }), (e) => e.code === 'INVALID_OPTION' && e.path === 'options.provider');
});
