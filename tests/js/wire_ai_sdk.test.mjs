// What the Vercel AI SDK sends, checked on the wire: each real provider
// (@ai-sdk/openai's Chat Completions and Responses models, @ai-sdk/anthropic,
// @ai-sdk/google on a Gemini 2.5 and a Gemini 3 model) is built with a
// capturing `fetch` that records the body `generateText` sends and answers
// with the provider's own minimal reply. In every body each test image's
// base64 appears only inside that API's image shape and decodes to the
// original bytes: for a compacted history with placeholders, for a
// `get_history_image` call answered by `historyImageTool` in a multi-step
// `generateText`, for an expanded context, for the messages
// `answerHistoryImageCall` gives, and for a route that receives `useChat`'s
// compacted UIMessages with the tool answered in the browser.
import test from 'node:test';
import assert from 'node:assert/strict';
import { convertToModelMessages, generateText, stepCountIs, streamText, validateUIMessages, wrapLanguageModel } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogle } from '@ai-sdk/google';
import { Stash, answerHistoryImageCall, compactContext, expandContext } from 'ctxpack';
import { compactUIMessages, ctxpackMiddleware, fileProviderOf, historyImageOutput, historyImageTool, toolResultFilesMiddleware, HISTORY_IMAGE_TOOL } from 'ctxpack/ai-sdk';
import { IMAGES, REPLIES, assertFilesBeta, assertImagesOnWire, capturingFetch } from './support/wire.mjs';

const { chart, photo } = IMAGES;

/** Each provider: the API its body is in, and its model built on a `fetch`. */
const PROVIDERS = [
  { provider: 'openai.chat', api: 'chat-completions', model: (fetch) => createOpenAI({ apiKey: 'test', fetch }).chat('gpt-4o') },
  { provider: 'openai.responses', api: 'responses', model: (fetch) => createOpenAI({ apiKey: 'test', fetch })('gpt-4o') },
  { provider: 'anthropic.messages', api: 'anthropic', model: (fetch) => createAnthropic({ apiKey: 'test', fetch })('claude-sonnet-4-5') },
  { provider: 'google.generative-ai', api: 'gemini', model: (fetch) => createGoogle({ apiKey: 'test', fetch })('gemini-2.5-flash'), label: 'Gemini 2.5' },
  { provider: 'google.generative-ai', api: 'gemini', model: (fetch) => createGoogle({ apiKey: 'test', fetch })('gemini-3-pro-preview'), label: 'Gemini 3' },
  { provider: 'google.generative-ai.interactions', api: 'interactions', model: (fetch) => createGoogle({ apiKey: 'test', fetch }).interactions('gemini-3-flash-preview'), label: 'Gemini Interactions' },
];

/** Where a fetched-back image is sent: in the tool result, or in a user message after it. */
const TOOL_IMAGE_WHERE = {
  'openai.chat': 'user',
  'openai.responses': 'tool',
  'anthropic.messages': 'tool',
  // Gemini 2.5 takes no image in a function response: the SDK sends it as a
  // part beside it; Gemini 3 takes it in the function response's own parts.
  'Gemini 2.5': 'user',
  'Gemini 3': 'tool',
  'Gemini Interactions': 'tool',
};

/** The conversation: the chart shared earlier, the photo in the newest user message. */
const conversation = () => [
  { role: 'user', content: [{ type: 'file', mediaType: chart.mime, data: { type: 'data', data: chart.b64 } }, { type: 'text', text: 'what is this chart?' }] },
  { role: 'assistant', content: [{ type: 'text', text: 'sales by month' }] },
  { role: 'user', content: [{ type: 'image', image: photo.b64, mediaType: photo.mime }, { type: 'text', text: 'compare this photo with the first chart' }] },
];

/** For Gemini, whose API wants user and model turns to alternate: no two contents in a row share a role. */
function assertTurnsAlternate(p, body) {
  if (p.api !== 'gemini') return;
  const roles = body.contents.map((c) => c.role);
  assert.ok(roles.every((r, i) => i === 0 || r !== roles[i - 1]), `turns alternate: ${roles.join(', ')}`);
}

/** The model of `p`, its captured bodies, answering with `replies` (built from the API's scripted replies). */
function captured(p, replies) {
  const { fetch, bodies, requests } = capturingFetch(replies(REPLIES[p.api]));
  return { model: p.model(fetch), bodies, requests };
}

for (const p of PROVIDERS) {
  const name = p.label ?? p.provider;

  test(`${name}: a compacted history sends placeholders, and only the newest image, as an image`, async () => {
    const stash = await Stash.open({ backend: 'memory' });
    const { model, bodies } = captured(p, (r) => [r.text('sales rose')]);
    const wrapped = wrapLanguageModel({ model, middleware: ctxpackMiddleware({ stash }) });
    const result = await generateText({ model: wrapped, messages: conversation() });
    assert.equal(result.text, 'sales rose');
    assert.equal(bodies.length, 1);
    assertImagesOnWire(p.api, bodies[0], { chart: 0, photo: 1 }, { photo: ['user'] });
    assert.ok(JSON.stringify(bodies[0]).includes(`[Picture:history_${chart.id}]`), 'the placeholder is sent');
  });

  test(`${name}: get_history_image answered by historyImageTool sends the original image as an image`, async () => {
    const stash = await Stash.open({ backend: 'memory' });
    const { model, bodies } = captured(p, (r) => [r.call(`history_${chart.id}`), r.text('the chart is higher')]);
    const wrapped = wrapLanguageModel({ model, middleware: ctxpackMiddleware({ stash }) });
    const result = await generateText({
      model: wrapped,
      messages: conversation(),
      tools: { [HISTORY_IMAGE_TOOL]: historyImageTool({ stash }) },
      stopWhen: stepCountIs(3),
    });
    assert.equal(result.text, 'the chart is higher');
    assert.equal(bodies.length, 2, 'one request with the call, one with its answer');
    assertImagesOnWire(p.api, bodies[0], { chart: 0, photo: 1 });
    assertImagesOnWire(p.api, bodies[1], { chart: 1, photo: 1 }, { chart: [TOOL_IMAGE_WHERE[p.label ?? p.provider]], photo: ['user'] });
    assertTurnsAlternate(p, bodies[1]);
  });

  test(`${name}: an expanded context sends every image restored, as an image`, async () => {
    const stash = await Stash.open({ backend: 'memory' });
    const { messages: compacted } = await compactContext(conversation(), { stash, format: 'ai-sdk' });
    const { messages: expanded, report } = await expandContext(compacted, { stash, format: 'ai-sdk' });
    assert.equal(report.restored, 1);
    const { model, bodies } = captured(p, (r) => [r.text('both')]);
    await generateText({ model, messages: expanded });
    assertImagesOnWire(p.api, bodies[0], { chart: 1, photo: 1 }, { chart: ['user'], photo: ['user'] });
  });

  test(`${name}: answerHistoryImageCall's answer, by default and for this provider, sends the image as an image`, async () => {
    const stash = await Stash.open({ backend: 'memory' });
    const { messages } = await compactContext(conversation(), { stash, format: 'ai-sdk' });
    const call = { type: 'tool-call', toolCallId: 'call_1', toolName: HISTORY_IMAGE_TOOL, input: { image_md5: chart.id } };
    const tools = { [HISTORY_IMAGE_TOOL]: historyImageTool() };
    for (const [options, where] of [
      [{ format: 'ai-sdk' }, 'user'],
      [{ format: 'ai-sdk', provider: p.provider }, TOOL_IMAGE_WHERE[p.label ?? p.provider]],
    ]) {
      const answer = await answerHistoryImageCall(stash, call, options);
      const { model, bodies } = captured(p, (r) => [r.text('the chart is higher')]);
      assert.equal(model.provider, p.provider);
      await generateText({ model, tools, messages: [...messages, { role: 'assistant', content: [call] }, ...answer] });
      assertImagesOnWire(p.api, bodies[0], { chart: 1, photo: 1 }, { chart: [where] });
      if (options.provider) assertTurnsAlternate(p, bodies[0]);
    }
  });

  test(`${name}: a route given compacted UIMessages, the tool answered in the browser, sends the image as an image`, async () => {
    const stash = await Stash.open({ backend: 'memory' });
    const turns = [
      { id: 'u1', role: 'user', parts: [{ type: 'file', mediaType: chart.mime, url: chart.dataUrl }, { type: 'text', text: 'what is this chart?' }] },
      { id: 'a1', role: 'assistant', parts: [{ type: 'text', text: 'sales by month' }] },
      { id: 'u2', role: 'user', parts: [{ type: 'file', mediaType: photo.mime, url: photo.dataUrl }, { type: 'text', text: 'compare this photo with the first chart' }] },
    ];
    // The browser: compacts before sending, then answers the model's call from its stash.
    await compactUIMessages(turns, { stash });
    const output = await historyImageOutput(stash, { image_md5: `history_${chart.id}` });
    assert.equal(output.found, true);
    const answered = { id: 'a2', role: 'assistant', parts: [{ type: `tool-${HISTORY_IMAGE_TOOL}`, toolCallId: 'call_1', state: 'output-available', input: { image_md5: `history_${chart.id}` }, output }] };
    const sent = await compactUIMessages([...turns, answered], { stash });
    // The route: no stash; its model places the tool's image for its provider.
    const tools = { [HISTORY_IMAGE_TOOL]: historyImageTool() };
    const { model, bodies } = captured(p, (r) => [r.text('the chart is higher')]);
    const wrapped = wrapLanguageModel({ model, middleware: toolResultFilesMiddleware() });
    await generateText({ model: wrapped, tools, messages: await convertToModelMessages(sent, { tools }) });
    assertImagesOnWire(p.api, bodies[0], { chart: 1, photo: 1 }, { chart: [TOOL_IMAGE_WHERE[name]], photo: ['user'] });
    assertTurnsAlternate(p, bodies[0]);
  });
}

test('openai.chat under streamText (a useChat route): the tool answered in the browser reaches the model as an image', async () => {
  const stash = await Stash.open({ backend: 'memory' });
  const turns = [
    { id: 'u1', role: 'user', parts: [{ type: 'file', mediaType: chart.mime, url: chart.dataUrl }, { type: 'text', text: 'what is this chart?' }] },
    { id: 'a1', role: 'assistant', parts: [{ type: 'text', text: 'sales by month' }] },
    { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'look at the chart again' }] },
  ];
  await compactUIMessages(turns, { stash });
  const output = await historyImageOutput(stash, { image_md5: chart.id });
  const answered = { id: 'a2', role: 'assistant', parts: [{ type: `tool-${HISTORY_IMAGE_TOOL}`, toolCallId: 'call_1', state: 'output-available', input: { image_md5: chart.id }, output }] };
  const sent = await compactUIMessages([...turns, answered], { stash });
  // Chat Completions streams server-sent events.
  const bodies = [];
  const chunk = (delta, finish) => `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 0, model: 'gpt-4o', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const fetch = async (url, init) => {
    bodies.push(JSON.parse(init.body));
    const sse = chunk({ role: 'assistant', content: 'higher' }, null) + chunk({}, 'stop') + 'data: [DONE]\n\n';
    return new Response(sse, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  };
  const tools = { [HISTORY_IMAGE_TOOL]: historyImageTool() };
  const model = wrapLanguageModel({ model: createOpenAI({ apiKey: 'test', fetch }).chat('gpt-4o'), middleware: toolResultFilesMiddleware() });
  const result = streamText({ model, tools, messages: await convertToModelMessages(sent, { tools }) });
  assert.equal(await result.text, 'higher');
  assert.equal(bodies[0].stream, true);
  assertImagesOnWire('chat-completions', bodies[0], { chart: 1 }, { chart: ['user'] });
});

/** The first object in `value` (depth first) for which `match` holds. */
function findObject(value, match) {
  if (Array.isArray(value)) {
    for (const v of value) {
      const found = findObject(v, match);
      if (found) return found;
    }
  } else if (value && typeof value === 'object') {
    if (match(value)) return value;
    for (const v of Object.values(value)) {
      const found = findObject(v, match);
      if (found) return found;
    }
  }
  return null;
}

/** Each API's reference to a file named `name`: the part that sends it. */
const REFERENCE = {
  responses: (name) => (o) => o.type === 'input_image' && o.file_id === name,
  anthropic: (name) => (o) => o.type === 'image' && o.source?.type === 'file' && o.source.file_id === name,
  gemini: (name) => (o) => o.fileData?.fileUri === name && o.fileData.mimeType === chart.mime,
  interactions: (name) => (o) => o.type === 'image' && o.uri === name,
};

for (const p of PROVIDERS.filter((p) => REFERENCE[p.api])) {
  const name = p.label ?? p.provider;
  test(`${name}: with offload the middleware sends the kept chart as a reference to its file, uploaded once to the model's provider`, async () => {
    const stash = await Stash.open({ backend: 'memory' });
    const uploads = [];
    const upload = async ({ md5, mediaType, data }) => {
      uploads.push({ md5, mediaType, bytes: data.length });
      return { id: `file-${md5.slice(0, 12)}`, uri: `https://generativelanguage.googleapis.com/v1beta/files/${md5.slice(0, 12)}` };
    };
    const reports = [];
    const { model, bodies, requests } = captured(p, (r) => [r.text('sales rose'), r.text('still rising')]);
    const middleware = ctxpackMiddleware({ stash, keepRecentImages: 1, offload: { upload, minBytes: 0 }, onReport: (r) => reports.push(r) });
    const wrapped = wrapLanguageModel({ model, middleware });
    await generateText({ model: wrapped, messages: conversation() });
    await generateText({ model: wrapped, messages: conversation() });
    assert.deepEqual(uploads.map((u) => [u.md5, u.mediaType]), [[chart.id, chart.mime]], 'the chart, once');
    assert.deepEqual(reports.map((r) => [r.offloaded, r.uploaded]), [[1, 1], [0 + 1, 0]]);
    const file = p.api === 'gemini' || p.api === 'interactions' ? `https://generativelanguage.googleapis.com/v1beta/files/${chart.id.slice(0, 12)}` : `file-${chart.id.slice(0, 12)}`;
    for (const body of bodies) {
      assert.ok(findObject(body, REFERENCE[p.api](file)), `${name}: the reference in the API's own shape: ${JSON.stringify(body).slice(0, 600)}`);
      assertImagesOnWire(p.api, body, { chart: 0, photo: 1 }, { photo: ['user'] });
    }
    assert.deepEqual(bodies[1], bodies[0], 'the same request: nothing new for the prompt cache');
    // A Messages request that references a file carries the Files API beta.
    if (p.api === 'anthropic') for (const [i, r] of requests.entries()) assertFilesBeta(r.headers, `${name} request ${i}`);
  });
}

test('openai.chat: with offload the kept chart stays inline (Chat Completions takes no image by file id), and the report says why', async () => {
  const p = PROVIDERS.find((x) => x.provider === 'openai.chat');
  const stash = await Stash.open({ backend: 'memory' });
  const uploads = [];
  const reports = [];
  const { model, bodies } = captured(p, (r) => [r.text('sales rose')]);
  const middleware = ctxpackMiddleware({ stash, keepRecentImages: 1, offload: { upload: async () => uploads.push(1), minBytes: 0 }, onReport: (r) => reports.push(r) });
  await generateText({ model: wrapLanguageModel({ model, middleware }), messages: conversation() });
  assert.equal(uploads.length, 0);
  assert.match(reports[0].offloadNote, /offload\.provider/);
  assertImagesOnWire('chat-completions', bodies[0], { chart: 1, photo: 1 });
});

test('useChat UIMessages compacted with offload: convertToModelMessages sends the providerReference as each API\'s reference', async () => {
  for (const p of PROVIDERS.filter((x) => ['anthropic.messages', 'openai.responses'].includes(x.provider) || x.label === 'Gemini 2.5')) {
    const stash = await Stash.open({ backend: 'memory' });
    const uploads = [];
    const upload = async ({ md5 }) => {
      uploads.push(md5);
      return { id: `file-${md5.slice(0, 12)}`, uri: `https://generativelanguage.googleapis.com/v1beta/files/${md5.slice(0, 12)}` };
    };
    const turns = [
      { id: 'u1', role: 'user', parts: [{ type: 'file', mediaType: chart.mime, url: chart.dataUrl }, { type: 'text', text: 'what is this chart?' }] },
      { id: 'a1', role: 'assistant', parts: [{ type: 'text', text: 'sales by month' }] },
      { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'and the trend?' }] },
    ];
    const provider = fileProviderOf(p.provider);
    const sent = await compactUIMessages(turns, { stash, keepRecentImages: 1, offload: { upload, provider, minBytes: 0 } });
    assert.deepEqual(uploads, [chart.id]);
    await validateUIMessages({ messages: sent }); // the AI SDK's own schema takes the reference part
    const { model, bodies, requests } = captured(p, (r) => [r.text('up')]);
    await generateText({ model, messages: await convertToModelMessages(sent) });
    if (p.api === 'anthropic') assertFilesBeta(requests[0].headers, p.provider);
    const file = provider === 'gemini' ? `https://generativelanguage.googleapis.com/v1beta/files/${chart.id.slice(0, 12)}` : `file-${chart.id.slice(0, 12)}`;
    assert.ok(findObject(bodies[0], REFERENCE[p.api](file)), `${p.provider}: ${JSON.stringify(bodies[0]).slice(0, 600)}`);
    assertImagesOnWire(p.api, bodies[0], { chart: 0, photo: 0 });
  }
});
