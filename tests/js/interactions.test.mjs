// Google's Interactions API (`gemini-interactions`): a step history with
// images in user input and in a function result compacts and expands
// exactly, and what ctxpack returns passes @google/genai's own types under
// `tsc --strict`; the body `ai.interactions.create` really sends (captured
// by a `fetch` stand-in) carries placeholders for history images, the newest
// turn's image inline in its own shape, and the image `get_history_image`
// fetched back inside the `function_result`.
import test from 'node:test';
import assert from 'node:assert/strict';
import { GoogleGenAI } from '@google/genai';
import {
  Stash, answerHistoryImageCall, compactContext, detectFormat, estimate, expandContext, formats, historyImageTool, sanitizeToolResult,
} from 'ctxpack';
import { IMAGES, assertImagesOnWire } from './support/wire.mjs';
import { assertTypeChecks } from './support/typecheck.mjs';

const { chart, photo, shot } = IMAGES;
const placeholder = (img) => `[Picture:history_${img.id}]`;

/** An agent's history: a screenshot tool call answered with an image, then a new photo. */
const steps = () => [
  { type: 'user_input', content: [{ type: 'text', text: '这是什么图？' }, { type: 'image', data: chart.b64, mime_type: chart.mime, resolution: 'high' }] },
  { type: 'thought', signature: 'c2lnbmF0dXJl', summary: [{ type: 'text', text: 'It is a chart; a screenshot would help.' }] },
  { type: 'function_call', id: 'fc_1', name: 'screenshot', arguments: { region: 'top-right' } },
  { type: 'function_result', call_id: 'fc_1', name: 'screenshot', result: [{ type: 'text', text: 'captured' }, { type: 'image', data: shot.b64, mime_type: shot.mime }] },
  { type: 'model_output', content: [{ type: 'text', text: '销售额按月增长。' }] },
  { type: 'user_input', content: [{ type: 'image', data: photo.b64, mime_type: photo.mime }, { type: 'image', uri: 'https://example.test/logo.png', mime_type: 'image/png' }, { type: 'text', text: '和第一张图比呢？' }] },
];

/** Type-checks `values` as `Interactions.Step[]` of @google/genai under `tsc --strict`. */
function typecheckSteps(values) {
  const lines = [`import type { Interactions } from '@google/genai';`];
  for (const [name, value] of Object.entries(values)) {
    lines.push(`export const ${name}: Interactions.Step[] = ${JSON.stringify(value, null, 1)};`);
  }
  assertTypeChecks(lines.join('\n') + '\n', 'interactions-');
}

/** Runs `send` with `globalThis.fetch` recording each request's JSON body and answering with `reply`. */
async function capturing(reply, send) {
  const bodies = [];
  const original = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    // The SDK passes a URL and init, or a Request.
    const request = input instanceof Request ? input : new Request(input, init);
    bodies.push({ url: request.url, body: JSON.parse(await request.text()) });
    return new Response(JSON.stringify(reply), { status: 200, headers: { 'content-type': 'application/json' } });
  };
  try {
    await send();
  } finally {
    globalThis.fetch = original;
  }
  return bodies;
}

const REPLY = { id: 'int_1', status: 'completed', model: 'gemini-3-flash-preview', steps: [{ type: 'model_output', content: [{ type: 'text', text: 'ok' }] }] };

test('gemini-interactions is a listed format, detected from its steps, turns and content lists', () => {
  assert.ok(formats().includes('gemini-interactions'));
  assert.equal(detectFormat(steps()), 'gemini-interactions');
  assert.equal(detectFormat([{ role: 'user', content: 'hi' }, { role: 'model', content: 'hello' }]), 'gemini-interactions');
  assert.equal(detectFormat([{ type: 'image', data: chart.b64, mime_type: chart.mime }, { type: 'text', text: 'what is it?' }]), 'gemini-interactions');
  assert.equal(detectFormat([{ role: 'user', content: [{ type: 'image', data: chart.b64, mime_type: chart.mime }] }]), 'gemini-interactions');
  // Responses items keep their format: a function_call with a call_id, a function_call_output.
  assert.equal(detectFormat([{ type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' }]), 'openai-responses');
  assert.equal(detectFormat([{ role: 'model', parts: [{ text: 'hi' }] }]), 'gemini');
});

test('steps compact to placeholders, expand exactly, and pass @google/genai\'s Step type', async () => {
  const input = steps();
  const before = structuredClone(input);
  const stash = await Stash.open({ backend: 'memory' });
  const compacted = await compactContext(input, { stash });
  assert.equal(compacted.report.format, 'gemini-interactions');
  assert.equal(compacted.report.stashed, 2, JSON.stringify(compacted.report.failures));
  assert.equal(compacted.report.newestUserIndex, 5);
  const out = compacted.messages;
  assert.deepEqual(out[0].content[1], { type: 'text', text: placeholder(chart) });
  assert.deepEqual(out[3].result[1], { type: 'text', text: placeholder(shot) });
  for (const i of [1, 2, 4, 5]) assert.equal(out[i], input[i], `steps[${i}] is the caller's own, untouched`);
  const again = await compactContext(out, { stash });
  assert.deepEqual(again.messages, out, 'compaction is idempotent');
  const expanded = await expandContext(out, { stash });
  assert.deepEqual(expanded.report.missing, []);
  assert.equal(JSON.stringify(expanded.messages), JSON.stringify(input), 'expand(compact(x)) is x, key order and all');
  assert.deepEqual(input, before, 'the caller\'s steps are not mutated');
  typecheckSteps({ input, compacted: out, expanded: expanded.messages });
});

test('a content-list input is one user turn: its images stay inline; older turns compact like steps', async () => {
  const stash = await Stash.open({ backend: 'memory' });
  const contents = [{ type: 'image', data: chart.b64, mime_type: chart.mime }, { type: 'image', data: photo.b64, mime_type: photo.mime }, { type: 'text', text: '比较这两张图' }];
  const { messages, report } = await compactContext(contents, { stash, format: 'gemini-interactions' });
  assert.equal(report.stashed, 0);
  assert.equal(JSON.stringify(messages), JSON.stringify(contents));
  assert.equal(estimate(contents, { provider: 'gemini' }).imageCount, 2);

  const turns = [
    { role: 'user', content: [{ type: 'image', data: chart.b64, mime_type: chart.mime }, { type: 'text', text: '这是什么？' }] },
    { role: 'model', content: '一张图表' },
    { role: 'user', content: '再说说' },
  ];
  const c = await compactContext(turns, { stash, collapseText: true });
  assert.equal(c.report.stashed, 1);
  assert.deepEqual(c.messages[0], { role: 'user', content: `${placeholder(chart)} 这是什么？` });
  const steps2 = [turns[0], { type: 'user_input', content: [{ type: 'text', text: 'and?' }] }].map((m, i) => (i === 0 ? { type: 'user_input', content: m.content } : m));
  const folded = await compactContext(steps2, { stash, collapseText: true });
  assert.deepEqual(folded.messages[0], { type: 'user_input', content: [{ type: 'text', text: `${placeholder(chart)} 这是什么？` }] }, 'a step\'s content stays a list');
});

test('tool results are sanitized, a resolution is read by estimate, and the tool definition is the flat function', async () => {
  const stash = await Stash.open({ backend: 'memory' });
  const history = [
    { type: 'user_input', content: [{ type: 'text', text: 'take a screenshot' }] },
    { type: 'function_call', id: 'fc_1', name: 'screenshot', arguments: {} },
    { type: 'function_result', call_id: 'fc_1', name: 'screenshot', result: JSON.stringify({ ok: true, imageBase64: shot.b64 }) },
    { type: 'user_input', content: [{ type: 'text', text: 'what do you see?' }] },
  ];
  const { messages } = await compactContext(history, { stash, sanitizeToolResults: true });
  assert.ok(!JSON.stringify(messages).includes(shot.probe), 'no base64 left in the tool result');
  assert.equal(JSON.parse(messages[2].result).ok, true);
  const sanitized = await sanitizeToolResult(JSON.parse(history[2].result), { stash });
  assert.ok(!JSON.stringify(sanitized).includes(shot.probe));

  const low = estimate([{ type: 'user_input', content: [{ type: 'image', data: photo.b64, mime_type: photo.mime, resolution: 'low' }] }], { model: 'gemini-3-pro-preview' });
  const high = estimate([{ type: 'user_input', content: [{ type: 'image', data: photo.b64, mime_type: photo.mime, resolution: 'high' }] }], { model: 'gemini-3-pro-preview' });
  assert.ok(low.imageTokens < high.imageTokens, `low ${low.imageTokens} < high ${high.imageTokens}`);

  const tool = historyImageTool('gemini-interactions');
  assert.equal(tool.type, 'function');
  assert.equal(tool.name, 'get_history_image');
  assert.deepEqual(tool.parameters.required, ['image_md5']);
});

test('@google/genai ai.interactions.create sends placeholders, the newest image inline, and the fetched-back image inside function_result', async () => {
  const stash = await Stash.open({ backend: 'memory' });
  const ai = new GoogleGenAI({ apiKey: 'test' });
  const tools = [historyImageTool('gemini-interactions')];
  const { messages: input } = await compactContext(steps(), { stash });
  const first = await capturing(REPLY, () => ai.interactions.create({ model: 'gemini-3-flash-preview', input, tools }));
  assert.equal(first.length, 1);
  assert.match(first[0].url, /\/interactions/);
  const body = first[0].body;
  assertImagesOnWire('interactions', body, { photo: 1 }, { photo: ['user'] });
  const text = JSON.stringify(body.input);
  assert.ok(text.includes(placeholder(chart)) && text.includes(placeholder(shot)), 'both placeholders are sent');
  assert.deepEqual(body.tools, tools, 'the tool definition is sent as written');
  assert.equal(body.input[1].signature, 'c2lnbmF0dXJl', 'the thought signature is sent untouched');

  // The model asks for the chart back: the app answers from its stash.
  const call = { type: 'function_call', id: 'fc_2', name: 'get_history_image', arguments: { image_md5: `history_${chart.id}` } };
  const answer = await answerHistoryImageCall(stash, call, { format: 'gemini-interactions' });
  assert.equal(answer.length, 1);
  assert.equal(answer[0].type, 'function_result');
  assert.equal(answer[0].call_id, 'fc_2');
  const next = [...input, call, ...answer];
  typecheckSteps({ next });
  const second = await capturing(REPLY, () => ai.interactions.create({ model: 'gemini-3-flash-preview', input: next, tools }));
  assertImagesOnWire('interactions', second[0].body, { chart: 1, photo: 1 }, { chart: ['tool'], photo: ['user'] });

  // An id the stash does not hold is answered in words.
  const missing = await answerHistoryImageCall(stash, { ...call, arguments: { image_md5: 'history_' + '0'.repeat(32) } }, { format: 'gemini-interactions' });
  assert.equal(missing[0].result.length, 1);
  assert.equal(missing[0].result[0].type, 'text');
});

test('with offload, ai.interactions.create sends a kept image as {type:image, uri, mime_type}, uploaded once, and expandContext gives it back', async () => {
  const stash = await Stash.open({ backend: 'memory' });
  const ai = new GoogleGenAI({ apiKey: 'test' });
  const uploads = [];
  const upload = async ({ md5, mediaType, data }) => {
    uploads.push({ md5, mediaType, bytes: data.length });
    return { uri: `https://generativelanguage.googleapis.com/v1beta/files/${md5.slice(0, 10)}`, expiresAt: Date.now() + 48 * 3600 * 1000 };
  };
  const turns = [
    { type: 'user_input', content: [{ type: 'image', data: chart.b64, mime_type: chart.mime, resolution: 'high' }, { type: 'text', text: 'what is it?' }] },
    { type: 'model_output', content: [{ type: 'text', text: 'a chart' }] },
    { type: 'user_input', content: [{ type: 'text', text: 'and the trend?' }] },
  ];
  const options = { stash, keepRecentImages: 1, offload: { upload, minBytes: 0 } };
  const { messages: input, report } = await compactContext(turns, options);
  assert.deepEqual([report.offloaded, report.uploaded], [1, 1]);
  const uri = `https://generativelanguage.googleapis.com/v1beta/files/${chart.id.slice(0, 10)}`;
  const sent = await capturing(REPLY, () => ai.interactions.create({ model: 'gemini-3-flash-preview', input }));
  assert.deepEqual(sent[0].body.input[0].content[0], { type: 'image', uri, mime_type: chart.mime, resolution: 'high' });
  assert.ok(!JSON.stringify(sent[0].body).includes(chart.probe), 'no payload rides along');
  typecheckSteps({ input });
  const again = await compactContext(turns, options);
  assert.equal(again.report.uploaded, 0);
  assert.deepEqual(uploads.map((u) => u.md5), [chart.id]);
  const { messages: back } = await expandContext(input, { stash });
  assert.deepEqual(back, turns);
});
