// Binary out of text, with the built Node package: tool results, artifact
// routing, text-only models, token and limit accounting.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  Stash, compactContext, getHistoryImage, sanitizeToolResult, routeArtifact, toTextOnly, hasMultimedia, estimate,
  parseContextLengthError, modelProfile, CtxpackError,
} from 'ctxpack';
import { makeImage } from '../fixtures/make.mjs';

const md5 = (s) => createHash('md5').update(s).digest('hex');

async function bigPng() {
  const png = await makeImage('png', 300, 300, 41);
  return png.toString('base64');
}

test('sanitizeToolResult: the seed example, with and without a stash', async () => {
  const b64 = await bigPng();
  const size = Buffer.from(b64, 'base64').length;
  const result = {
    success: true,
    output: '图片生成成功。',
    metadata: { imagePath: '/path/to/image.png', imageBase64: `data:image/png;base64,${b64}`, model: 'flux', durationMs: 812 },
  };
  const before = JSON.stringify(result);
  const filtered = await sanitizeToolResult(result);
  assert.equal(filtered.metadata.imageBase64, `[BINARY_DATA_FILTERED: ${(size / 1024).toFixed(1)}KB]`);
  assert.equal(filtered.metadata.imagePath, '/path/to/image.png');
  assert.equal(filtered.metadata.durationMs, 812);
  assert.equal(JSON.stringify(result), before, 'not mutated');

  const stash = await Stash.open({ backend: 'memory' });
  const stashed = await sanitizeToolResult(result, { stash });
  assert.equal(stashed.metadata.imageBase64, `[Binary:history_${md5(b64)} image/png ${(size / 1024).toFixed(1)}KB]`);
  const [part] = await getHistoryImage(stash, md5(b64));
  assert.equal(part.image_url.url, `data:image/png;base64,${b64}`);

  // A JSON string in, a JSON string out; nothing binary: the same value back.
  const asText = await sanitizeToolResult(JSON.stringify(result));
  assert.equal(JSON.parse(asText).metadata.imageBase64.startsWith('[BINARY_DATA_FILTERED'), true);
  const plain = { ok: true, rows: [1, 2, 3] };
  assert.equal(await sanitizeToolResult(plain), plain);
  // Nested deep, custom fields, threshold.
  const nested = await sanitizeToolResult({ a: [{ b: { frame: b64.slice(0, 400) } }] }, { fields: ['frame'] });
  assert.match(nested.a[0].b.frame, /^\[BINARY_DATA_FILTERED: /);
  await assert.rejects(sanitizeToolResult({}, { fields: [1] }), (e) => e instanceof CtxpackError && e.path === 'options.fields[0]');
});

test('sanitizeToolResult judges a data URL the same whether it is short or long: its declared type when its bytes do not tell, its header counted, the character mix not asked of it', async () => {
  // The boundary keeps a string of 1024 characters or more in JavaScript:
  // the short URL is read into wasm memory, the long one is not.
  const noise = (n, seed) => {
    const bytes = Buffer.alloc(n);
    for (let i = 0, s = seed; i < n; i++) { s = (s * 1664525 + 1013904223) >>> 0; bytes[i] = s >>> 24; }
    return bytes.toString('base64');
  };
  const stash = await Stash.open({ backend: 'memory' });
  try {
    for (const payload of [noise(300, 1), noise(30_000, 2), 'A'.repeat(400), 'A'.repeat(40_000)]) {
      const url = `data:Application/X-Custom;base64,${payload}`;
      const out = await sanitizeToolResult({ imageBase64: url }, { stash });
      const size = Buffer.from(payload, 'base64').length;
      assert.equal(out.imageBase64, `[Binary:history_${md5(payload)} application/x-custom ${(size / 1024).toFixed(1)}KB]`, `${payload.length} characters`);
    }
    // Under the threshold (an unknown field), the header counts as in memory.
    const payload = noise(7_650, 3);
    const url = `data:application/x-custom;base64,${payload}`;
    const threshold = url.length - 1;
    assert.notEqual((await sanitizeToolResult({ file: url }, { stash, thresholdBytes: threshold })).file, url);
    assert.equal((await sanitizeToolResult({ file: url }, { stash, thresholdBytes: threshold + 1 })).file, url);
  } finally {
    stash.free();
  }
});

test('sanitizeToolResult leaves prose, code, JSON, hex, JWTs and minified JS alone', async () => {
  const samples = {
    prose: 'It was the best of times, it was the worst of times. '.repeat(300),
    code: 'export function add(a, b) {\n  return a + b;\n}\n'.repeat(400),
    json: JSON.stringify(Array.from({ length: 400 }, (_, i) => ({ id: i, name: `row ${i}` }))),
    hex: createHash('sha256').update('x').digest('hex').repeat(400),
    jwt: `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.${Buffer.from('{"sub":"1234567890"}'.repeat(600)).toString('base64url')}.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c`,
    minified: '!function(e,t){"object"==typeof exports&&"undefined"!=typeof module?module.exports=t():e.lib=t()}(this,function(){"use strict";return{}});'.repeat(120),
  };
  for (const [name, value] of Object.entries(samples)) {
    assert.ok(value.length > 10240, name);
    const out = await sanitizeToolResult({ value });
    assert.equal(out.value, value, name);
  }
});

test('compactContext sanitizes OpenAI tool messages holding JSON before the newest user message', async () => {
  const b64 = await bigPng();
  const tool = JSON.stringify({ metadata: { imagePath: '/tmp/x.png', imageBase64: `data:image/png;base64,${b64}` } });
  const messages = [
    { role: 'user', content: 'draw' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'image_generate', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'c1', content: tool },
    { role: 'user', content: 'again' },
    { role: 'tool', tool_call_id: 'c2', content: tool },
  ];
  const stash = await Stash.open({ backend: 'memory' });
  const { messages: out, report } = await compactContext(messages, { stash, sanitizeToolResults: true });
  assert.match(JSON.parse(out[2].content).metadata.imageBase64, /^\[Binary:history_[0-9a-f]{32} image\/png /);
  assert.equal(out[4], messages[4], 'after the newest user message: untouched');
  assert.equal(report.binariesStashed, 1);
});

test('routeArtifact: the design examples, capabilities, and a failing lookup', async () => {
  const pdf = { id: 'def456', filename: 'report.pdf', bytes: new TextEncoder().encode('%PDF-1.7\n%…') };
  const zh = routeArtifact(pdf, { vision: true }, { lang: 'zh' });
  assert.equal(zh.routing, 'text');
  assert.equal(zh.contentType, 'document');
  const lines = zh.part.text.split('\n');
  assert.equal(lines[0], '[无法读取] report.pdf (artifact:def456)');
  assert.match(lines[1], /^类型: PDF 文档/);
  assert.equal(lines[2], '当前模型不支持读取此类文件。建议创建具备相应能力的智能体协助处理。');
  const en = routeArtifact(pdf, {}, {});
  assert.match(en.part.text, /^\[Cannot read\] report\.pdf \(artifact:def456\)\nType: PDF document/);

  const file = routeArtifact(pdf, { file: true }, { format: 'anthropic' });
  assert.equal(file.routing, 'file');
  assert.equal(file.part.type, 'document');
  const png = await makeImage('png', 10, 10, 1);
  const img = routeArtifact({ id: 'abc123', filename: 'screenshot.png', base64: png.toString('base64') }, { vision: true });
  assert.equal(img.routing, 'image');
  assert.equal(img.part.image_url.url, `data:image/png;base64,${png.toString('base64')}`);
  const failing = routeArtifact({ id: 'x', filename: 'screenshot.png', bytes: png }, () => { throw new Error('registry down'); });
  assert.equal(failing.routing, 'text');
  assert.ok(!failing.part.text.includes(png.toString('base64').slice(0, 20)));
  const text = routeArtifact({ id: 't', text: 'plain words' }, { vision: true });
  assert.deepEqual(text.part, { type: 'text', text: 'plain words' });
  assert.throws(() => routeArtifact({ filename: 'x' }, {}), (e) => e.code === 'INVALID_ARGUMENT' && e.path === 'artifact.id');
});

test('toTextOnly and hasMultimedia', async () => {
  const b64 = (await makeImage('jpeg', 20, 20, 2)).toString('base64');
  const messages = [
    { role: 'user', content: [{ type: 'text', text: '这张图片是什么?' }, { type: 'image_url', image_url: { url: 'https://cdn.test/a.png' } }, { type: 'image_url', image_url: { url: `data:image/jpeg;base64,${b64}` } }] },
    { role: 'assistant', content: '一张图。' },
  ];
  assert.equal(hasMultimedia(messages), true);
  assert.equal(hasMultimedia([{ role: 'user', content: 'code: `![x](y.png)`' }]), false);
  assert.equal(hasMultimedia([{ role: 'user', content: 'see ![x](y.png)' }]), true);
  // Without a stash nothing is known to be stored: the inline image is described.
  const described = toTextOnly(messages);
  assert.match(described[0].content, /^这张图片是什么\?\n\n!\[图片1\]\(https:\/\/cdn\.test\/a\.png\)\n\n\[图片2: image\/jpeg [0-9.]+ [KM]?B, not stored\]$/);
  assert.equal(described[1], messages[1]);
  const stash = await Stash.open({ backend: 'memory' });
  const out = await toTextOnly(messages, { stash });
  assert.equal(out[0].content, `这张图片是什么?\n\n![图片1](https://cdn.test/a.png)\n\n[Picture:history_${md5(b64)}]`);
  const [part] = await getHistoryImage(stash, md5(b64));
  assert.equal(part.image_url.url, `data:image/jpeg;base64,${b64}`);
  assert.equal(hasMultimedia(out), true, 'placeholders count');
});

test('toTextOnly after compactContext names only what the stash holds', async () => {
  const old = (await makeImage('png', 20, 20, 3)).toString('base64');
  const fresh = (await makeImage('jpeg', 20, 20, 4)).toString('base64');
  const messages = [
    { role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${old}` } }] },
    { role: 'assistant', content: 'a chart' },
    { role: 'user', content: [{ type: 'text', text: 'and this one?' }, { type: 'image_url', image_url: { url: `data:image/jpeg;base64,${fresh}` } }] },
  ];
  const stash = await Stash.open({ backend: 'memory' });
  const { messages: compacted } = await compactContext(messages, { stash });
  const text = toTextOnly(compacted);
  assert.equal(text[0].content[0].text, `[Picture:history_${md5(old)}]`, 'the stashed history image keeps its placeholder');
  assert.ok(!text[2].content.includes(md5(fresh)), 'the newest image was never stashed: no placeholder names it');
  assert.match(text[2].content, /\[图片1: image\/jpeg .*not stored\]/);
  // With the stash, the newest image is written first, and the tool finds it.
  const viaStash = await toTextOnly(compacted, { stash });
  assert.ok(viaStash[2].content.endsWith(`[Picture:history_${md5(fresh)}]`));
  const [part] = await getHistoryImage(stash, md5(fresh));
  assert.equal(part.image_url.url, `data:image/jpeg;base64,${fresh}`);
});

test('estimate reads real dimensions and applies each provider rule', async () => {
  const img = (w, h) => makeImage('png', w, h, 5).then((b) => `data:image/png;base64,${b.toString('base64')}`);
  const messages = [
    { role: 'user', content: [{ type: 'image_url', image_url: { url: await img(1024, 1024) } }, { type: 'image_url', image_url: { url: await img(200, 100), detail: 'low' } }, { type: 'text', text: 'abcdefgh这是' }] },
  ];
  const openai = estimate(messages, { provider: 'openai' });
  assert.deepEqual(openai.images.map((i) => [i.width, i.height, i.tokens, i.measured]), [[1024, 1024, 765, true], [200, 100, 85, true]]);
  assert.equal(openai.textTokens, 4 + 2 + 2);
  assert.equal(openai.imageCount, 2);
  assert.deepEqual(openai.exceeded, []);
  const anthropic = estimate(messages, { provider: 'anthropic' });
  assert.deepEqual(anthropic.images.map((i) => i.tokens), [Math.ceil((1024 * 1024) / 750), Math.ceil((200 * 100) / 750)]);
  const gemini = estimate(messages, { provider: 'gemini' });
  assert.deepEqual(gemini.images.map((i) => i.tokens), [258 * 4, 258]);
  const bedrock = estimate(messages, { provider: 'bedrock', limits: { maxImages: 1 } });
  assert.equal(bedrock.exceeded.length, 1);
  assert.throws(() => estimate(messages, { provider: 'acme' }), (e) => e.code === 'INVALID_OPTION' && e.path === 'options.provider');
});

test('compactContext with a model stashes more until the request fits, or says why not', async () => {
  const img = async (seed) => `data:image/png;base64,${(await makeImage('png', 30, 30, seed)).toString('base64')}`;
  const messages = [];
  for (let i = 0; i < 25; i++) messages.push({ role: 'user', content: [{ type: 'image_url', image_url: { url: await img(i + 1) } }] }, { role: 'assistant', content: 'ok' });
  messages.push({ role: 'user', content: 'which was red?' });
  const stash = await Stash.open({ backend: 'memory' });
  const { report } = await compactContext(messages, { stash, keepRecentImages: 25, model: { provider: 'bedrock' }, slack: false });
  assert.equal(report.limitStashed, 5, 'Bedrock takes 20 images per request');
  assert.equal(report.fits, true);
  // With the default slack the limit is met with a fifth of it to spare, in
  // batches of 4: the next 3 turns' images only append.
  const stepped = await compactContext(messages, { stash, keepRecentImages: 25, model: { provider: 'bedrock' } });
  assert.equal(stepped.report.limitStashed, 8);
  assert.equal(stepped.report.kept, 17);
  assert.equal(stepped.report.fits, true);
  const tooMany = [{ role: 'user', content: Array.from({ length: 3 }, () => ({ type: 'image_url', image_url: { url: 'https://x.test/a.png' } })) }];
  const r2 = await compactContext(tooMany, { stash, model: { provider: 'openai', maxImages: 2 } });
  assert.equal(r2.report.fits, false);
  assert.match(r2.report.limitProblem, /newest turn/);
});

test('compactContext takes model as an id, as fitContext and estimate do: the profile\'s limits, with profile and limits applied', async () => {
  const img = async (seed) => `data:image/png;base64,${(await makeImage('png', 30, 30, seed)).toString('base64')}`;
  const messages = [];
  for (let i = 0; i < 25; i++) messages.push({ role: 'user', content: [{ type: 'image_url', image_url: { url: await img(i + 101) } }] }, { role: 'assistant', content: 'ok' });
  messages.push({ role: 'user', content: 'which was red?' });
  // Exact counts: evictions one image at a time (slack: false).
  const run = async (options) => (await compactContext(messages, { stash: await Stash.open({ backend: 'memory' }), keepRecentImages: 25, slack: false, ...options })).report;
  // A Bedrock model id gets Bedrock's 20 images, as the provider object does.
  const id = 'bedrock/anthropic.claude-sonnet-4-5';
  assert.equal(modelProfile(id).maxImages, 20);
  assert.equal((await run({ model: id })).limitStashed, 5);
  assert.equal((await run({ model: { provider: 'bedrock' } })).limitStashed, 5);
  // The options fitContext and estimate take beside an id apply here too.
  assert.equal((await run({ model: id, limits: { maxImages: 22 } })).limitStashed, 3);
  assert.equal((await run({ model: id, profile: { maxImages: 24 } })).limitStashed, 1);
  // No limit stashes nothing beyond keepRecentImages.
  assert.equal((await run({ model: id, profile: { maxImages: null } })).limitStashed, 0);
  await assert.rejects(run({ model: 42 }), (e) => e instanceof CtxpackError && e.code === 'INVALID_OPTION' && e.path === 'options.model');
  await assert.rejects(run({ model: 'gpt-4o', profile: { maxImagez: 1 } }), (e) => e.code === 'INVALID_OPTION' && e.path.startsWith('options.profile'));
});

test('parseContextLengthError', () => {
  const msg = "This model's maximum context length is 131072 tokens. However, you requested 5472941 tokens (5468845 in the messages, 4096 in the completion).";
  assert.deepEqual(parseContextLengthError(msg), { requested: 5472941, max: 131072, provider: 'openai' });
  assert.equal(parseContextLengthError('nothing here'), null);
  assert.equal(parseContextLengthError(42), null);
});
