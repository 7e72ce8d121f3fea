// The adapters as apps use them, each library's loop run for real with only
// the model mocked: `ctxpack/ai-sdk` (middleware, tool) under the AI SDK 7's
// generateText with MockLanguageModelV4, and `ctxpack/langchain` (agent
// middleware, tool) under LangChain's createAgent with its fake model.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { generateText, stepCountIs, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { createAgent } from 'langchain';
import { fakeModel } from '@langchain/core/testing';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { Stash, answerHistoryImageCall, compactContext, historyImageTexts } from 'ctxpack';
import * as aiSdk from 'ctxpack/ai-sdk';
import * as lc from 'ctxpack/langchain';
import { makeImage } from '../fixtures/make.mjs';

const md5 = (s) => createHash('md5').update(s).digest('hex');
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

/** A mock model of `provider` answering each call with the next of `replies` (content arrays). */
function scriptedModel(replies, provider = 'mock-provider') {
  let n = 0;
  return new MockLanguageModelV4({
    provider,
    doGenerate: async () => ({
      content: replies[Math.min(n++, replies.length - 1)],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage,
      warnings: [],
    }),
  });
}

/** The base64 of a prompt file part's data. */
function base64Of(data) {
  if (data?.type === 'data') return base64Of(data.data);
  return typeof data === 'string' ? data : Buffer.from(data).toString('base64');
}

async function conversation() {
  const old = (await makeImage('png', 64, 48, 90)).toString('base64');
  const fresh = (await makeImage('jpeg', 40, 30, 91)).toString('base64');
  const messages = [
    { role: 'user', content: [{ type: 'file', mediaType: 'image/png', data: { type: 'data', data: old } }, { type: 'text', text: 'what is this chart?' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'sales by month' }] },
    { role: 'user', content: [{ type: 'image', image: fresh, mediaType: 'image/jpeg' }, { type: 'text', text: 'compare with the first chart' }] },
  ];
  return { old, fresh, messages };
}

/** Runs the middleware and the tool under generateText with a mock model of `provider`: the prompts it received. */
async function toolLoop(provider) {
  const { old, fresh, messages } = await conversation();
  const stash = await Stash.open({ backend: 'memory' });
  const reports = [];
  const inner = scriptedModel([
    [{ type: 'tool-call', toolCallId: 'call-1', toolName: aiSdk.HISTORY_IMAGE_TOOL, input: JSON.stringify({ image_md5: `history_${md5(old)}` }) }],
    [{ type: 'text', text: 'the first chart is higher' }],
  ], provider);
  const model = wrapLanguageModel({ model: inner, middleware: aiSdk.ctxpackMiddleware({ stash, onReport: (r) => reports.push(r) }) });
  const result = await generateText({
    model,
    messages,
    tools: { [aiSdk.HISTORY_IMAGE_TOOL]: aiSdk.historyImageTool({ stash }) },
    stopWhen: stepCountIs(3),
  });
  assert.equal(result.text, 'the first chart is higher');
  const [first, second] = inner.doGenerateCalls.map((c) => c.prompt);
  return { old, fresh, first, second, reports };
}

test('ai-sdk: the middleware compacts every prompt; the tool gives the model the original image back', async () => {
  const { old, fresh, first, second, reports } = await toolLoop('mock-provider');
  // First call: the older image is a placeholder, the newest one intact.
  assert.equal(first[0].content[0].text, `[Picture:history_${md5(old)}]`);
  assert.equal(base64Of(first[2].content[0].data), fresh);
  assert.ok(!JSON.stringify(first).includes(old.slice(0, 100)));
  assert.equal(reports[0].stashed, 1);
  // Second call: a provider not known to send a tool result's file as an
  // image gets the tool result as text, and the original image as the
  // user's in the message after it.
  const at = second.findIndex((m) => m.role === 'tool');
  const output = second[at].content[0].output;
  assert.equal(output.type, 'text');
  assert.match(output.value, /follows in the next message/);
  assert.ok(!output.value.includes(old.slice(0, 100)));
  const user = second[at + 1];
  assert.equal(user.role, 'user');
  const file = user.content.find((p) => p.type === 'file');
  assert.equal(file.mediaType, 'image/png');
  assert.equal(base64Of(file.data), old);
});

test('ai-sdk: for a provider that sends a tool result\'s file as an image, the image stays in the tool result', async () => {
  const { old, second } = await toolLoop('anthropic.messages');
  const at = second.findIndex((m) => m.role === 'tool');
  const output = second[at].content[0].output;
  assert.equal(output.type, 'content');
  const file = output.value.find((p) => p.type === 'file');
  assert.equal(file.mediaType, 'image/png');
  assert.equal(base64Of(file.data), old);
  assert.equal(second.length, at + 1, 'no message after the tool result');
  assert.equal(output.value.find((p) => p.type === 'text').text, `Image history_${md5(old)} from earlier in the conversation:`);
  assert.ok(aiSdk.toolResultsTakeFiles('openai.responses'));
  assert.ok(aiSdk.toolResultsTakeFiles('google.generative-ai'));
  assert.ok(aiSdk.toolResultsTakeFiles('google.generative-ai.interactions'));
  assert.ok(!aiSdk.toolResultsTakeFiles('openai.chat'));
  assert.ok(!aiSdk.toolResultsTakeFiles(undefined));
});

test('historyImageTexts: the placeholder compactContext writes, and the words answerHistoryImageCall answers with', async () => {
  const { old, messages } = await conversation();
  const stash = await Stash.open({ backend: 'memory' });
  const { messages: compacted } = await compactContext(messages, { stash, format: 'ai-sdk' });
  const written = compacted[0].content[0].text;
  for (const id of [md5(old), `history_${md5(old)}`, md5(old).toUpperCase()]) {
    assert.equal(historyImageTexts(id).placeholder, written, id);
  }
  const call = { type: 'tool_use', id: 't', name: 'get_history_image', input: { image_md5: md5(old) } };
  const [found] = await answerHistoryImageCall(stash, call, { format: 'anthropic' });
  assert.equal(found.content[0].content[0].text, historyImageTexts(md5(old)).found);
  const none = historyImageTexts('cat.png');
  assert.equal(none.placeholder, null, 'no placeholder for what is no image id');
  assert.match(none.missing, /^Image cat\.png is no longer available/);
});

test('ai-sdk: moveToolResultFiles moves every file of a run of tool results into one user message after it', () => {
  const file = (data) => ({ type: 'file', mediaType: 'image/png', data: { type: 'data', data } });
  const result = (id, value) => ({ type: 'tool-result', toolCallId: id, toolName: 'shot', output: { type: 'content', value } });
  const prompt = [
    { role: 'user', content: [{ type: 'text', text: 'take two screenshots' }] },
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'a', toolName: 'shot', input: {} }, { type: 'tool-call', toolCallId: 'b', toolName: 'shot', input: {} }] },
    { role: 'tool', content: [result('a', [{ type: 'text', text: 'first' }, file('AAAA')])] },
    { role: 'tool', content: [result('b', [file('BBBB'), file('CCCC')])] },
  ];
  const out = aiSdk.moveToolResultFiles(prompt);
  assert.equal(out.length, 5);
  assert.deepEqual(out[2].content[0].output, { type: 'text', value: 'first\nThe file of this result follows in the next message.' });
  assert.deepEqual(out[3].content[0].output, { type: 'text', value: 'The 2 files of this result follow in the next message.' });
  assert.deepEqual(out[4], {
    role: 'user',
    content: [
      { type: 'text', text: 'Result of shot (a):' }, file('AAAA'),
      { type: 'text', text: 'Result of shot (b):' }, file('BBBB'), file('CCCC'),
    ],
  });
  assert.equal(out[0], prompt[0], 'messages that do not change are the caller\'s own');
  assert.equal(prompt[2].content[0].output.type, 'content', 'the input is not mutated');
  // Nothing to move: the prompt itself; inline text files stay in the tool result.
  const textOnly = [{ role: 'tool', content: [result('c', [{ type: 'file', mediaType: 'text/plain', data: { type: 'text', text: 'hi' } }])] }];
  assert.equal(aiSdk.moveToolResultFiles(textOnly), textOnly);
  assert.equal(aiSdk.moveToolResultFiles(prompt.slice(0, 2)).length, 2);
});

test('ai-sdk: an expired id answers with text the model can act on', async () => {
  const stash = await Stash.open({ backend: 'memory' });
  const out = await aiSdk.historyImageOutput(stash, { image_md5: '0'.repeat(32) });
  assert.equal(out.found, false);
  // The adapter speaks the package's words: what answerHistoryImageCall says for the same id.
  const [answer] = await answerHistoryImageCall(stash, { type: 'tool_use', id: 't', name: 'get_history_image', input: { image_md5: '0'.repeat(32) } }, { format: 'anthropic' });
  assert.equal(out.message, answer.content[0].content[0].text);
  assert.match(out.message, /no longer available.*share it again/);
  const langchainTool = lc.historyImageTool({ stash });
  assert.equal(await langchainTool.invoke({ image_md5: '0'.repeat(32) }), out.message);
  const declared = aiSdk.historyImageTool();
  assert.equal(declared.execute, undefined, 'without a stash the tool is declared for a client to answer');
  const modelOutput = await declared.toModelOutput({ toolCallId: 'x', input: { image_md5: 'x' }, output: out });
  assert.deepEqual(modelOutput, { type: 'text', value: out.message });
  assert.throws(() => aiSdk.ctxpackMiddleware({}), TypeError);
});

test('langchain: agent middleware compacts each model call; the tool\'s image reaches the model as the user\'s', async () => {
  const { old, fresh } = await conversation();
  const stash = await Stash.open({ backend: 'memory' });
  const model = fakeModel()
    .respondWithTools([{ name: 'get_history_image', args: { image_md5: md5(old) }, id: 'tc-1' }])
    .respond(new AIMessage('the first chart is higher'));
  const agent = createAgent({
    model,
    tools: [lc.historyImageTool({ stash })],
    middleware: [lc.ctxpackMiddleware({ stash })],
  });
  const input = [
    new HumanMessage({ content: [{ type: 'image', mimeType: 'image/png', data: old }, { type: 'text', text: 'what is this chart?' }] }),
    new AIMessage('sales by month'),
    new HumanMessage({ content: [{ type: 'image', mimeType: 'image/jpeg', data: fresh }, { type: 'text', text: 'compare with the first chart' }] }),
  ];
  const result = await agent.invoke({ messages: input });
  assert.equal(result.messages.at(-1).content, 'the first chart is higher');
  const [first, second] = model.calls.map((c) => c.messages);
  assert.ok(first[0] instanceof HumanMessage);
  assert.deepEqual(first[0].content[0], { type: 'text', text: `[Picture:history_${md5(old)}]` });
  assert.equal(first[2].content[0].data, fresh, 'the newest image is sent as it is');
  assert.equal(result.messages[0].content[0].data, old, "the agent's state keeps the original");
  // The tool answers with an image_url block; a model that takes no image in
  // a tool message (the fake model, like ChatOpenAI) gets the tool message as
  // text and the image in a human message after it.
  const toolAnswer = result.messages.find((m) => m instanceof ToolMessage);
  assert.deepEqual(toolAnswer.content.find((b) => b.type === 'image_url'), { type: 'image_url', image_url: { url: `data:image/png;base64,${old}` } });
  const at = second.findIndex((m) => m instanceof ToolMessage);
  assert.equal(second[at].tool_call_id, 'tc-1');
  assert.ok(!JSON.stringify(second[at].content).includes(old.slice(0, 100)));
  assert.ok(second[at + 1] instanceof HumanMessage);
  const image = second[at + 1].content.find((b) => b.type === 'image_url');
  assert.deepEqual(image, { type: 'image_url', image_url: { url: `data:image/png;base64,${old}` } });
  assert.ok(!lc.toolMessagesTakeImages(model));
});

test('langchain: moveToolMessageMedia moves the images of a run of tool messages into one human message after it', () => {
  const image = (data) => ({ type: 'image_url', image_url: { url: `data:image/png;base64,${data}` } });
  const messages = [
    new HumanMessage('take two screenshots'),
    new AIMessage({ content: '', tool_calls: [{ id: 'a', name: 'shot', args: {} }, { id: 'b', name: 'shot', args: {} }] }),
    new ToolMessage({ content: [{ type: 'text', text: 'first' }, image('AAAA')], tool_call_id: 'a', name: 'shot' }),
    new ToolMessage({ content: [image('BBBB')], tool_call_id: 'b', name: 'shot', artifact: { n: 2 } }),
    new AIMessage('two screenshots'),
  ];
  const out = lc.moveToolMessageMedia(messages);
  assert.equal(out.length, 6);
  assert.ok(out[2] instanceof ToolMessage && out[3] instanceof ToolMessage);
  assert.deepEqual(out[2].content, [{ type: 'text', text: 'first' }, { type: 'text', text: 'The image or file of this result follows in the next message.' }]);
  assert.equal(out[3].tool_call_id, 'b');
  assert.deepEqual(out[3].artifact, { n: 2 });
  assert.ok(out[4] instanceof HumanMessage);
  assert.deepEqual(out[4].content, [
    { type: 'text', text: 'Result of shot (a):' }, image('AAAA'),
    { type: 'text', text: 'Result of shot (b):' }, image('BBBB'),
  ]);
  assert.equal(out[5], messages[4]);
  const plain = [new HumanMessage('hi'), new ToolMessage({ content: 'done', tool_call_id: 'x' })];
  assert.equal(lc.moveToolMessageMedia(plain), plain, 'nothing to move: the messages themselves');
});

test('langchain: compactMessages keeps unchanged messages and rebuilds changed ones in their own class', async () => {
  const { old } = await conversation();
  const stash = await Stash.open({ backend: 'memory' });
  const tool = new ToolMessage({ content: [{ type: 'image', mimeType: 'image/png', data: old }], tool_call_id: 'shot-1', name: 'screenshot' });
  const ai = new AIMessage({ content: '', tool_calls: [{ id: 'shot-1', name: 'screenshot', args: {} }] });
  const messages = [new HumanMessage('take a screenshot'), ai, tool, new AIMessage('done'), new HumanMessage('thanks')];
  const { messages: out, report } = await lc.compactMessages(messages, { stash });
  assert.equal(report.stashed, 1);
  assert.equal(out[0], messages[0]);
  assert.equal(out[1], ai);
  assert.ok(out[2] instanceof ToolMessage);
  assert.equal(out[2].tool_call_id, 'shot-1');
  assert.equal(out[2].name, 'screenshot');
  assert.deepEqual(out[2].content, [{ type: 'text', text: `[Picture:history_${md5(old)}]` }]);
});

// ---- the adapters' prompts as JSON text ----

test('a prompt of plain JSON without inline payloads is compacted as text, agreeing with compactContext; any other as objects', async () => {
  const { compactPrompt } = await import('../../dist/adapters/plain-prompt.mjs');
  const png = (await makeImage('png', 40, 30, 91)).toString('base64');
  const placeholder = `[Picture:history_${createHash('md5').update(png).digest('hex')}]`;
  const chat = [{ role: 'system', content: 'You are an agent.' }];
  for (let i = 0; i < 30; i++) {
    chat.push({ role: 'user', content: [{ type: 'text', text: `task ${i} ${i % 5 ? '' : placeholder}` }] });
    chat.push({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: `c${i}`, toolName: 'read', input: { i, path: `src/${i}.rs` } }] });
    chat.push({ role: 'tool', content: [{ type: 'tool-result', toolCallId: `c${i}`, toolName: 'read', output: { type: 'json', value: { ok: true, n: i / 3 } } }] });
  }
  chat.push({ role: 'user', content: [{ type: 'text', text: 'and now?' }] });
  const cases = [
    ['plain', chat, {}, true],
    ['plain, a cache breakpoint changing one message', chat, { cacheBreakpoint: true }, true],
    ['an image as base64', [{ role: 'user', content: [{ type: 'file', mediaType: 'image/png', data: png }] }, ...chat], {}, false],
    ['an image as a data URL', [{ role: 'user', content: [{ type: 'image', image: `data:image/png;base64,${png}` }] }, ...chat], {}, false],
    ['an image as bytes', [{ role: 'user', content: [{ type: 'file', mediaType: 'image/png', data: Buffer.from(png, 'base64') }] }, ...chat], {}, false],
    ['a URL object', [{ role: 'user', content: [{ type: 'image', image: new URL('https://x.test/a.png') }] }, ...chat], {}, false],
    ['a tool text of base64', [...chat.slice(0, 3), { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c0', toolName: 'read', output: { type: 'text', value: png } }] }, ...chat.slice(3)], {}, false],
    ['a long JSON tool text, sanitized', [...chat.slice(0, 3), { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c0', toolName: 'read', output: { type: 'text', value: JSON.stringify({ text: 'x'.repeat(2000) }) } }] }, ...chat.slice(3)], { sanitizeToolResults: true }, false],
    ['a long JSON tool text, not sanitized', [...chat.slice(0, 3), { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c0', toolName: 'read', output: { type: 'text', value: JSON.stringify({ text: 'x'.repeat(2000) }) } }] }, ...chat.slice(3)], {}, true],
  ];
  for (const [name, messages, options, asText] of cases) {
    const [a, b] = [await Stash.open({ backend: 'memory' }), await Stash.open({ backend: 'memory' })];
    for (let send = 0; send < 2; send++) {
      // Node 22 clones no URL: messages holding bytes or a URL are sent as they are.
      const prompt = messages.map((m) => (m.content[0].data instanceof Uint8Array || m.content[0].image instanceof URL ? m : structuredClone(m)));
      const got = await compactPrompt(prompt, { ...options, stash: a, format: 'ai-sdk' });
      const objects = await compactContext(prompt, { ...options, stash: b, format: 'ai-sdk' });
      assert.equal(got.asText, asText, name);
      assert.deepEqual(got.report, objects.report, name);
      assert.deepEqual(JSON.parse(JSON.stringify(got.messages)), JSON.parse(JSON.stringify(objects.messages)), name);
      // A message that did not change is the caller's own.
      got.messages.forEach((m, i) => assert.equal(m === prompt[i], objects.messages[i] === prompt[i], `${name}: message ${i}`));
    }
  }
});
