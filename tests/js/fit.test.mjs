// fitContext and repairContext through the package as Node loads it: the
// codec module (loaded on first use) resizes real images made by the
// fixtures; the results are checked by estimate under the same model, by
// the token formulas, and by the stash holding every original.
import test from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import sharp from 'sharp';
import ctxpack from 'ctxpack';
import { makeAnimatedGif, makeImage, makeNoisePng, makeScreenshot } from '../fixtures/make.mjs';

const { fitContext, repairContext, estimate, Stash, getHistoryImage, modelProfile, codecResize } = ctxpack;

const part = (png, mime = 'image/png') => ({ type: 'image', source: { type: 'base64', media_type: mime, data: png.toString('base64') } });

/** One user turn per image, each answered, then a last question holding `newest`. */
function conversation(images, newest = []) {
  const m = [];
  images.forEach((img, i) => {
    m.push({ role: 'user', content: [part(img), { type: 'text', text: `step ${i}` }] });
    m.push({ role: 'assistant', content: 'noted' });
  });
  m.push({ role: 'user', content: [...newest.map((img) => part(img)), { type: 'text', text: 'and now?' }] });
  return m;
}

/** Every Anthropic image block's bytes. */
const blocks = (messages) => messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((p) => p.type === 'image');
const dimsOf = async (block) => {
  const meta = await sharp(Buffer.from(block.source.data, 'base64')).metadata();
  return { width: meta.width, height: meta.height, format: meta.format };
};

/** OpenAI's 512-px tile formula, written out from the vision guide. */
function openaiTiles(w, h, base = 85, perTile = 170) {
  const fit = Math.min(1, 2048 / Math.max(w, h));
  [w, h] = [w * fit, h * fit];
  const shrink = Math.min(1, 768 / Math.min(w, h));
  [w, h] = [Math.round(w * shrink), Math.round(h * shrink)];
  return base + perTile * Math.ceil(w / 512) * Math.ceil(h / 512);
}

test('the codec module is loaded only when an image must change', async () => {
  assert.equal(ctxpack.__codecLoaded(), false);
  const small = await makeImage('png', 64, 48);
  const { report } = await fitContext(conversation([], [small]), { model: 'claude-sonnet-4-5' });
  assert.equal(report.images[0].action, 'kept');
  assert.equal(ctxpack.__codecLoaded(), false, 'nothing to resize, nothing loaded');
  await fitContext(conversation([], [await makeScreenshot(3000, 1900, 9)]), { model: 'claude-sonnet-4-5', profile: { maxLongEdge: 1000 } });
  assert.equal(ctxpack.__codecLoaded(), true);
});

test('25 screenshots of 3000×1900 fit each model, Claude’s many-image rule included, at the tokens the formulas give', async () => {
  const shots = [];
  for (let i = 0; i < 25; i++) shots.push(await makeScreenshot(3000, 1900, i));
  const messages = conversation(shots.slice(0, 24), shots.slice(24));
  for (const model of ['claude-sonnet-4-5', 'claude-opus-4-7', 'gpt-4o', 'gemini-2.5-pro']) {
    const before = estimate(messages, { model });
    const stash = await Stash.open({ backend: 'memory' });
    const { messages: out, report } = await fitContext(messages, { model, stash });
    const after = estimate(out, { model });
    assert.equal(report.fits, true, `${model}: ${report.problems}`);
    assert.deepEqual(after.exceeded, [], model);
    assert.equal(report.stashed, 0, 'no image had to leave');
    assert.equal(report.tokensAfter, after.totalTokens);
    const sent = blocks(out);
    assert.equal(sent.length, 25);
    const profile = modelProfile(model);
    for (const [i, img] of report.images.entries()) {
      const d = await dimsOf(sent[i]);
      assert.deepEqual([img.after.width, img.after.height], [d.width, d.height]);
      assert.equal(img.after.tokens, after.images[i].tokens);
      if (profile.provider === 'anthropic') {
        assert.ok(before.exceeded.some((e) => e.includes('more than 20 images')), model);
        assert.ok(Math.max(d.width, d.height) <= 2000, `${model}: ${d.width}×${d.height}`);
        // From Opus 4.7 on, 28-px patches; earlier Claude models, w·h/750.
        const tokens = profile.tokens.kind === 'anthropic-patches' ? Math.ceil(d.width / 28) * Math.ceil(d.height / 28) : Math.ceil((d.width * d.height) / 750);
        assert.equal(img.after.tokens, tokens, profile.tokens.kind);
        assert.ok(img.reasons.includes('many-image-rule') || img.reasons.includes('larger-than-model-reads'));
        // Never more bytes than the original: a PNG of the resampled text
        // would be larger, so a screenshot goes as JPEG at a quality that
        // keeps text readable (80 or more), or stays PNG when that is smaller.
        assert.ok(img.after.bytes < img.before.bytes, `${model}: ${img.after.bytes} ≥ ${img.before.bytes}`);
        if (d.format === 'jpeg') assert.ok(img.after.quality >= 80, `quality ${img.after.quality}`);
        else assert.equal(d.format, 'png');
        assert.equal(img.after.mime, `image/${d.format}`);
        assert.equal(img.action, 'downscaled');
        // The original waits in the stash at full size.
        const [orig] = await getHistoryImage(stash, img.id, { format: 'anthropic' });
        assert.equal(orig.source.data, messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((p) => p.type === 'image')[i].source.data);
      }
      if (model === 'gpt-4o') {
        assert.equal(img.after.tokens, openaiTiles(d.width, d.height));
        assert.equal(img.after.tokens, img.before.tokens, 'downscaled to what the model reads: same tokens');
      }
      if (model === 'gemini-2.5-pro') assert.equal(img.action, 'kept', 'Gemini reads images as they are');
    }
  }
});

test('a 9 MB PNG fits the 5 MB rule (on the base64) and Gemini’s 7 MB (decoded, as JPEG)', async () => {
  const png = await makeNoisePng(1750, 1750);
  assert.ok(png.length > 9_000_000);
  const claude = await fitContext(conversation([], [png]), { model: 'claude-sonnet-4-5' });
  const [c] = claude.report.images;
  assert.ok(c.reasons.includes('over-image-bytes'));
  assert.ok(c.after.base64Bytes <= 5 * 1024 * 1024, `${c.after.base64Bytes}`);
  assert.equal(blocks(claude.messages)[0].source.data.length, c.after.base64Bytes);
  assert.equal(claude.report.fits, true);
  const gemini = await fitContext(conversation([], [png]), { model: 'gemini-2.5-pro' });
  const [g] = gemini.report.images;
  assert.equal(g.action, 'reencoded');
  assert.deepEqual([g.after.width, g.after.height], [1750, 1750]);
  assert.equal(g.after.mime, 'image/jpeg');
  assert.ok(g.after.bytes <= 7 * 1024 * 1024);
  const block = blocks(gemini.messages)[0];
  assert.equal(block.source.media_type, 'image/jpeg', 'the part says what it now holds');
  assert.equal((await dimsOf(block)).format, 'jpeg');
});

test('120 images fit a 100-image limit: the 20 oldest are stashed and still answer get_history_image', async () => {
  const images = [];
  for (let i = 0; i < 120; i++) images.push(await makeImage('png', 40, 30, i + 1));
  const messages = conversation(images);
  const stash = await Stash.open({ backend: 'memory' });
  const { messages: out, report } = await fitContext(messages, { model: 'claude-sonnet-4-5', stash });
  assert.equal(report.fits, true, String(report.problems));
  assert.equal(report.stashed, 20);
  assert.equal(report.imagesAfter, 100);
  const stashed = report.images.filter((i) => i.action === 'stashed');
  assert.deepEqual(stashed.map((i) => i.path), images.slice(0, 20).map((_, k) => `messages[${2 * k}].content[0]`));
  assert.ok(stashed.every((i) => i.reasons[0] === 'too-many-images'));
  assert.match(JSON.stringify(out[0]), /\[Picture:history_[0-9a-f]{32}\]/);
  const [back] = await getHistoryImage(stash, stashed[0].id, { format: 'anthropic' });
  assert.equal(back.source.data, images[0].toString('base64'));
  // Without a stash nothing can leave, and the report says so.
  const bare = await fitContext(messages, { model: 'claude-sonnet-4-5' });
  assert.equal(bare.report.fits, false);
  assert.ok(bare.report.problems.some((p) => p.includes('no stash')), String(bare.report.problems));
});

test('the context window: the oldest images leave first, and the newest turn stays', async () => {
  const shot = await makeScreenshot(1000, 1000, 4);
  const messages = conversation([shot, shot, shot, shot], [shot]);
  const stash = await Stash.open({ backend: 'memory' });
  const full = estimate(messages, { model: 'claude-sonnet-4-5' }).totalTokens;
  // One image at a time (slack: false): just enough leave.
  const { report } = await fitContext(messages, { model: 'claude-sonnet-4-5', stash, maxTokens: full - 2000, slack: false });
  assert.deepEqual(report.images.map((i) => i.action), ['stashed', 'stashed', 'kept', 'kept', 'kept']);
  assert.ok(report.tokensAfter <= full - 2000);
  assert.ok(report.images[0].reasons.includes('over-context'));
  // The previous request (without the newest turn) had one image fewer and
  // would have stashed the first only: this one moves from the second's message.
  assert.equal(report.firstChangedIndex, 2);
  // In batches: the model's 100 images give batches of 20, so every history
  // image leaves at once and the next turns only append.
  const stepped = await fitContext(messages, { model: 'claude-sonnet-4-5', stash, maxTokens: full - 2000 });
  assert.deepEqual(stepped.report.images.map((i) => i.action), ['stashed', 'stashed', 'stashed', 'stashed', 'kept']);
  assert.deepEqual(stepped.report.images.map((i) => i.reasons[0]), ['over-context', 'over-context', 'over-context', 'over-context', undefined]);
});

test('an animated GIF keeps its frames unless a hard limit forces it, and then the report says first frame only', async () => {
  const gif = await makeAnimatedGif(1700, 300, 3);
  const soft = await fitContext(conversation([], [gif]), { model: 'claude-sonnet-4-5' });
  assert.equal(soft.report.images[0].action, 'kept');
  assert.match(soft.report.images[0].note, /animated/);
  const hard = await fitContext(conversation([], [gif]), { model: 'claude-sonnet-4-5', profile: { maxLongEdge: 1000 } });
  const [img] = hard.report.images;
  assert.equal(img.action, 'downscaled');
  assert.equal(img.firstFrameOnly, true);
  assert.equal(img.after.mime, 'image/png');
  const meta = await sharp(Buffer.from(blocks(hard.messages)[0].source.data, 'base64'), { animated: true }).metadata();
  assert.equal(meta.pages ?? 1, 1);
  // OpenAI takes no animated GIF: its first frame goes, as a PNG.
  const small = await makeAnimatedGif(300, 200, 3);
  const gpt = await fitContext(conversation([], [small]), { model: 'gpt-4o' });
  const [first] = gpt.report.images;
  assert.deepEqual(first.reasons, ['unsupported-format']);
  assert.equal(first.firstFrameOnly, true);
  assert.equal(first.after.mime, 'image/png');
  const sent = await sharp(Buffer.from(blocks(gpt.messages)[0].source.data, 'base64'), { animated: true }).metadata();
  assert.deepEqual([sent.format, sent.pages ?? 1, sent.width, sent.height], ['png', 1, 300, 200]);
});

test('a caller’s resize function is used, and one that returns the wrong size is reported, not trusted', async () => {
  const calls = [];
  const resize = async (image, target) => {
    calls.push({ mime: image.mime, width: image.width, target });
    assert.ok(image.data instanceof Uint8Array);
    const data = await sharp(image.data).resize(target.width, target.height).toFormat(target.mime === 'image/png' ? 'png' : 'jpeg').toBuffer();
    return { data };
  };
  const shot = await makeImage('jpeg', 4000, 3000, 3);
  const { report } = await fitContext(conversation([], [shot]), { model: 'gpt-4o', resize });
  assert.equal(calls.length, 1);
  assert.deepEqual(calls[0].target, { width: 1024, height: 768, mime: 'image/jpeg', quality: 85 });
  assert.deepEqual([report.images[0].after.width, report.images[0].after.height], [1024, 768]);
  const liar = async () => ({ data: await makeImage('png', 5000, 5000) });
  const lied = await fitContext(conversation([], [shot]), { model: 'gpt-4o', resize: liar });
  assert.equal(lied.report.images[0].action, 'failed');
  assert.match(lied.report.images[0].note, /returned 5000×5000 instead of an image of at most 1024×768/);
  assert.equal(lied.report.fits, true, 'the original is sent: the model takes it, at the same tokens');
  assert.equal(blocks(lied.messages)[0].source.data, shot.toString('base64'));
  const thrower = async () => { throw new Error('no GPU today'); };
  const failed = await fitContext(conversation([], [shot]), { model: 'claude-sonnet-4-5', profile: { maxLongEdge: 100 }, resize: thrower });
  assert.equal(failed.report.images[0].action, 'failed');
  assert.match(failed.report.images[0].note, /IMAGE_RESIZE_FAILED: no GPU today/);
  assert.equal(failed.report.fits, false);
  // The codec's own export works as a resize function too.
  const out = await codecResize({ data: new Uint8Array(shot), mime: 'image/jpeg', width: 4000, height: 3000 }, { width: 40, height: 30, mime: 'image/png', quality: 85 });
  assert.equal((await sharp(out.data).metadata()).width, 40);
});

test('repairContext reads the SDK’s refusal and fixes what it names; what it cannot fix is a CtxpackError', async () => {
  const images = [];
  for (let i = 0; i < 12; i++) images.push(await makeImage('png', 40, 30, i + 1));
  const client = new Anthropic({
    apiKey: 'test',
    maxRetries: 0,
    fetch: async () => new Response(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'Too many images in request: 11 images provided, but the model supports a maximum of 10 images.' } }), { status: 400, headers: { 'content-type': 'application/json' } }),
  });
  const messages = conversation(images.slice(0, 11));
  let refusal;
  try {
    await client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 8, messages });
  } catch (e) {
    refusal = e;
  }
  const stash = await Stash.open({ backend: 'memory' });
  const { messages: out, report, refusal: read } = await repairContext(messages, refusal, { model: 'claude-sonnet-4-5', stash, slack: false });
  assert.equal(read.kind, 'too-many-images');
  assert.equal(report.imagesAfter, 10);
  assert.equal(blocks(out).length, 10);
  // By default the limit it read is met with a fifth to spare (batches of
  // 2), so the next turn's image does not meet the same refusal.
  const stepped = await repairContext(messages, refusal, { model: 'claude-sonnet-4-5', stash });
  assert.equal(stepped.report.imagesAfter, 9);
  assert.equal(stepped.report.stashed, 2);
  await assert.rejects(repairContext(messages, new Error('socket hang up'), { model: 'claude-sonnet-4-5', stash }), (e) => e.code === 'NOT_A_REFUSAL' && e.path === 'error');
  await assert.rejects(
    repairContext([{ role: 'user', content: 'word '.repeat(5000) }], 'prompt is too long: 213610 tokens > 199999 maximum', { model: 'claude-sonnet-4-5' }),
    (e) => e.code === 'CANNOT_FIT' && /context-length/.test(e.message),
  );
});

test('bad options name their path', async () => {
  await assert.rejects(fitContext([], {}), (e) => e.code === 'INVALID_OPTION' && e.path === 'options.model');
  await assert.rejects(fitContext([], { model: 'gpt-4o', profile: { maxImagez: 3 } }), (e) => e.code === 'INVALID_OPTION' && e.path === 'options.profile.maxImagez');
  await assert.rejects(fitContext([], { model: 'gpt-4o', maxTokens: 1.5 }), (e) => e.code === 'INVALID_OPTION' && e.path === 'options.maxTokens');
  await assert.rejects(fitContext([], { model: 'gpt-4o', stash: {} }), (e) => e.code === 'INVALID_OPTION' && e.path === 'options.stash');
  await assert.rejects(fitContext('nope', { model: 'gpt-4o' }), (e) => e.code === 'INVALID_ARGUMENT' && e.path === 'messages');
});
