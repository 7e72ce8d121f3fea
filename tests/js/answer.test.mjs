// The tool loop, API by API, with each real SDK and only the transport
// stubbed: a conversation with an image is compacted, the model's
// get_history_image call is scripted in that API's shape, answerHistoryImageCall
// gives the messages to append, and the next request — sent through the SDK
// — carries the original image. Every answer is also type-checked under
// tsc --strict against the SDK's own types.
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { Ollama } from 'ollama';
import { generateText } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { coerceMessageLikeToMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Stash, compactContext, answerHistoryImageCall, getHistoryImage, CtxpackError } from 'ctxpack';
import { ROOT } from '../../scripts/serve.mjs';
import { makeImage } from '../fixtures/make.mjs';

const md5 = (s) => createHash('md5').update(s).digest('hex');
const png = (await makeImage('png', 48, 32, 111)).toString('base64');
const id = md5(png);
const dataUrl = `data:image/png;base64,${png}`;
/** Answers collected for the type check, by SDK type. */
const typed = [];

/** A fetch that records request bodies and answers with `reply`. */
function capturingFetch(reply) {
  const bodies = [];
  const fetch = async (url, init) => {
    bodies.push(JSON.parse(typeof init?.body === 'string' ? init.body : await new Response(init.body).text()));
    return new Response(JSON.stringify(reply), { status: 200, headers: { 'content-type': 'application/json' } });
  };
  return { fetch, bodies };
}

async function compacted(messages, format) {
  const stash = await Stash.open({ backend: 'memory' });
  const { messages: out, report } = await compactContext(messages, { stash, format });
  assert.equal(report.stashed, 1, format);
  assert.ok(!JSON.stringify(out).includes(png.slice(0, 100)), `${format}: compacted`);
  return { stash, messages: out };
}

test('OpenAI Chat Completions: a tool message, then the image as the user’s', async () => {
  const { stash, messages } = await compacted([
    { role: 'user', content: [{ type: 'image_url', image_url: { url: dataUrl } }, { type: 'text', text: 'what is this?' }] },
    { role: 'assistant', content: 'a chart' },
    { role: 'user', content: 'look at it again' },
  ], 'openai');
  const call = { id: 'call_1', type: 'function', function: { name: 'get_history_image', arguments: JSON.stringify({ image_md5: `history_${id}` }) } };
  const answer = await answerHistoryImageCall(stash, call, { format: 'openai' });
  const { fetch, bodies } = capturingFetch({ id: 'x', object: 'chat.completion', created: 0, model: 'gpt-4o', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'ok' } }] });
  const client = new OpenAI({ apiKey: 'test', fetch });
  await client.chat.completions.create({ model: 'gpt-4o', messages: [...messages, { role: 'assistant', content: null, tool_calls: [call] }, ...answer] });
  const sent = bodies[0].messages;
  assert.deepEqual(sent.at(-2).role, 'tool');
  assert.equal(sent.at(-2).tool_call_id, 'call_1');
  assert.equal(typeof sent.at(-2).content, 'string', 'a tool message carries text only');
  assert.equal(sent.at(-1).role, 'user');
  assert.equal(sent.at(-1).content.find((p) => p.type === 'image_url').image_url.url, dataUrl);
  typed.push(['import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";', 'ChatCompletionMessageParam[]', answer]);
});

test('OpenAI Responses: a function_call_output whose output holds the image', async () => {
  const { stash, messages } = await compacted([
    { role: 'user', content: [{ type: 'input_image', image_url: dataUrl, detail: 'auto' }, { type: 'input_text', text: 'what is this?' }] },
    { role: 'assistant', content: 'a chart' },
    { role: 'user', content: 'look at it again' },
  ], 'openai-responses');
  const call = { type: 'function_call', call_id: 'call_1', name: 'get_history_image', arguments: JSON.stringify({ image_md5: id }) };
  const answer = await answerHistoryImageCall(stash, call, { format: 'openai-responses' });
  const { fetch, bodies } = capturingFetch({ id: 'resp_1', object: 'response', created_at: 0, model: 'gpt-5', status: 'completed', output: [], parallel_tool_calls: true, tool_choice: 'auto', tools: [] });
  const client = new OpenAI({ apiKey: 'test', fetch });
  await client.responses.create({ model: 'gpt-5', input: [...messages, call, ...answer] });
  const output = bodies[0].input.at(-1);
  assert.equal(output.type, 'function_call_output');
  assert.equal(output.call_id, 'call_1');
  assert.equal(output.output.find((p) => p.type === 'input_image').image_url, dataUrl);
  typed.push(['import type { ResponseInputItem } from "openai/resources/responses/responses";', 'ResponseInputItem[]', answer]);
});

test('Anthropic: a tool_result with the image block', async () => {
  const { stash, messages } = await compacted([
    { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } }, { type: 'text', text: 'what is this?' }] },
    { role: 'assistant', content: 'a chart' },
    { role: 'user', content: 'look at it again' },
  ], 'anthropic');
  const call = { type: 'tool_use', id: 'toolu_1', name: 'get_history_image', input: { image_md5: id } };
  const answer = await answerHistoryImageCall(stash, call, { format: 'anthropic' });
  const { fetch, bodies } = capturingFetch({ id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } });
  const client = new Anthropic({ apiKey: 'test', fetch });
  await client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [...messages, { role: 'assistant', content: [call] }, ...answer] });
  const result = bodies[0].messages.at(-1).content[0];
  assert.equal(result.type, 'tool_result');
  assert.equal(result.tool_use_id, 'toolu_1');
  assert.equal(result.content.find((b) => b.type === 'image').source.data, png);
  typed.push(['import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";', 'MessageParam[]', answer]);
});

test('Gemini: a functionResponse whose parts hold the image', async () => {
  const { stash, messages } = await compacted([
    { role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: png } }, { text: 'what is this?' }] },
    { role: 'model', parts: [{ text: 'a chart' }] },
    { role: 'user', parts: [{ text: 'look at it again' }] },
  ], 'gemini');
  const call = { functionCall: { id: 'fc_1', name: 'get_history_image', args: { image_md5: id } } };
  const answer = await answerHistoryImageCall(stash, call, { format: 'gemini' });
  const { fetch, bodies } = capturingFetch({ candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP' }] });
  const ai = new GoogleGenAI({ apiKey: 'test', httpOptions: { fetch } });
  await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: [...messages, { role: 'model', parts: [call] }, ...answer] });
  const response = bodies[0].contents.at(-1).parts[0].functionResponse;
  assert.equal(response.name, 'get_history_image');
  assert.equal(response.id, 'fc_1');
  assert.equal(response.parts[0].inlineData.data, png);
  typed.push(['import type { Content } from "@google/genai";', 'Content[]', answer]);
});

test('AI SDK 7: by default a text tool result, then the image as the user’s; with a provider that takes it, a tool result with file content', async () => {
  const { stash, messages } = await compacted([
    { role: 'user', content: [{ type: 'file', mediaType: 'image/png', data: { type: 'data', data: png } }, { type: 'text', text: 'what is this?' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'a chart' }] },
    { role: 'user', content: [{ type: 'text', text: 'look at it again' }] },
  ], 'ai-sdk');
  const call = { type: 'tool-call', toolCallId: 'call_1', toolName: 'get_history_image', input: { image_md5: id } };
  const model = () => new MockLanguageModelV4({
    doGenerate: async () => ({
      content: [{ type: 'text', text: 'ok' }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
      warnings: [],
    }),
  });
  const base64 = (data) => (typeof data === 'string' ? data : Buffer.from(data).toString('base64'));
  // The default never puts the image where a provider may send it as text.
  const safe = await answerHistoryImageCall(stash, call, { format: 'ai-sdk' });
  const first = model();
  await generateText({ model: first, messages: [...messages, { role: 'assistant', content: [call] }, ...safe] });
  const [tool, user] = first.doGenerateCalls[0].prompt.slice(-2);
  assert.equal(tool.role, 'tool');
  assert.equal(tool.content[0].toolCallId, 'call_1');
  assert.equal(tool.content[0].output.type, 'text');
  assert.ok(!tool.content[0].output.value.includes(png.slice(0, 100)));
  assert.equal(user.role, 'user');
  const image = user.content.find((p) => p.type === 'file');
  assert.equal(image.mediaType, 'image/png');
  assert.equal(base64(image.data.type === 'data' ? image.data.data : image.data), png);
  typed.push(['import type { ModelMessage } from "ai";', 'ModelMessage[]', safe]);
  // For a provider whose converter sends a tool result's file as an image.
  const inTool = await answerHistoryImageCall(stash, call, { format: 'ai-sdk', provider: 'anthropic.messages' });
  assert.equal(inTool.length, 1);
  const second = model();
  await generateText({ model: second, messages: [...messages, { role: 'assistant', content: [call] }, ...inTool] });
  const last = second.doGenerateCalls[0].prompt.at(-1);
  const file = last.content[0].output.value.find((p) => p.type === 'file');
  assert.equal(base64(file.data.type === 'data' ? file.data.data : file.data), png);
  typed.push(['import type { ModelMessage } from "ai";', 'ModelMessage[]', inTool]);
  await assert.rejects(answerHistoryImageCall(stash, call, { format: 'ai-sdk', provider: 7 }), (e) => e.code === 'INVALID_OPTION' && e.path === 'options.provider');
});

test('LangChain JS: a ToolMessage with text, then the image as the user’s in an image_url block', async () => {
  const { stash } = await compacted([
    ['human', [{ type: 'image', mimeType: 'image/png', data: png }, { type: 'text', text: 'what is this?' }]],
    ['ai', 'a chart'],
    ['human', 'look at it again'],
  ], 'langchain');
  const answer = await answerHistoryImageCall(stash, { id: 'call_1', name: 'get_history_image', args: { image_md5: id } }, { format: 'langchain' });
  const [tool, user] = answer.map((m) => coerceMessageLikeToMessage(m));
  assert.ok(tool instanceof ToolMessage);
  assert.equal(tool.tool_call_id, 'call_1');
  assert.equal(typeof tool.content, 'string');
  assert.ok(user instanceof HumanMessage);
  // ChatOpenAI, ChatAnthropic and ChatGoogleGenerativeAI each send this block as an image.
  assert.deepEqual(user.content.find((b) => b.type === 'image_url'), { type: 'image_url', image_url: { url: dataUrl } });
  // getHistoryImage: the same block, and Python LangChain's behind its own name.
  assert.deepEqual(await getHistoryImage(stash, id, { format: 'langchain' }), [{ type: 'image_url', image_url: { url: dataUrl } }]);
  assert.deepEqual(await getHistoryImage(stash, id, { format: 'langchain-python' }), [{ type: 'image', mime_type: 'image/png', base64: png }]);
});

test('MCP: a CallToolResult the SDK’s schema accepts', async () => {
  const { stash } = await compacted([
    { role: 'user', content: { type: 'image', data: png, mimeType: 'image/png' } },
    { role: 'assistant', content: { type: 'text', text: 'a chart' } },
    { role: 'user', content: { type: 'text', text: 'look at it again' } },
  ], 'mcp');
  const answer = await answerHistoryImageCall(stash, { name: 'get_history_image', arguments: { image_md5: id } }, { format: 'mcp' });
  const result = CallToolResultSchema.parse(answer[0]);
  assert.equal(result.content.find((b) => b.type === 'image').data, png);
});

test('Ollama: a tool message with the image in images', async () => {
  const { stash, messages } = await compacted([
    { role: 'user', content: 'what is this?', images: [png] },
    { role: 'assistant', content: 'a chart' },
    { role: 'user', content: 'look at it again' },
  ], 'ollama');
  const call = { function: { name: 'get_history_image', arguments: { image_md5: id } } };
  const answer = await answerHistoryImageCall(stash, call, { format: 'ollama' });
  const { fetch, bodies } = capturingFetch({ model: 'llava', created_at: '2026-01-01T00:00:00Z', message: { role: 'assistant', content: 'ok' }, done: true });
  const client = new Ollama({ fetch });
  await client.chat({ model: 'llava', messages: [...messages, { role: 'assistant', content: '', tool_calls: [call] }, ...answer], stream: false });
  assert.deepEqual(bodies[0].messages.at(-1).images, [png]);
  typed.push(['import type { Message } from "ollama";', 'Message[]', answer]);
});

test('an unknown id is answered in every API’s own shape, which its SDK accepts', async () => {
  const stash = await Stash.open({ backend: 'memory' });
  const args = { image_md5: `history_${'0'.repeat(32)}` };
  const calls = {
    openai: [{ id: 'c', type: 'function', function: { name: 'get_history_image', arguments: JSON.stringify(args) } }, 'import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";', 'ChatCompletionMessageParam[]'],
    'openai-responses': [{ type: 'function_call', call_id: 'c', name: 'get_history_image', arguments: JSON.stringify(args) }, 'import type { ResponseInputItem } from "openai/resources/responses/responses";', 'ResponseInputItem[]'],
    anthropic: [{ type: 'tool_use', id: 'c', name: 'get_history_image', input: args }, 'import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";', 'MessageParam[]'],
    gemini: [{ name: 'get_history_image', args }, 'import type { Content } from "@google/genai";', 'Content[]'],
    'ai-sdk': [{ type: 'tool-call', toolCallId: 'c', toolName: 'get_history_image', input: args }, 'import type { ModelMessage } from "ai";', 'ModelMessage[]'],
    ollama: [{ function: { name: 'get_history_image', arguments: args } }, 'import type { Message } from "ollama";', 'Message[]'],
    langchain: [{ id: 'c', name: 'get_history_image', args }],
    mcp: [{ name: 'get_history_image', arguments: args }],
  };
  for (const [format, [call, imp, type]] of Object.entries(calls)) {
    const answer = await answerHistoryImageCall(stash, call, { format });
    const text = JSON.stringify(answer);
    assert.match(text, /no longer available.*share it again/, format);
    assert.doesNotMatch(text, /image_url|inlineData|"image"|"file"|images/, `${format}: no image part`);
    if (type) typed.push([imp, type, answer]);
  }
  const [gemini] = await answerHistoryImageCall(stash, calls.gemini[0], { format: 'gemini' });
  assert.equal(gemini.parts[0].functionResponse.id, undefined, 'a call without an id is answered without one');
  const [tool] = await answerHistoryImageCall(stash, calls.langchain[0], { format: 'langchain' });
  assert.ok(coerceMessageLikeToMessage(tool) instanceof ToolMessage);
  const [result] = await answerHistoryImageCall(stash, calls.mcp[0], { format: 'mcp' });
  assert.equal(CallToolResultSchema.parse(result).isError, false);
  const model = new MockLanguageModelV4({
    doGenerate: async () => ({
      content: [{ type: 'text', text: 'ok' }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
      warnings: [],
    }),
  });
  const ai = await answerHistoryImageCall(stash, calls['ai-sdk'][0], { format: 'ai-sdk' });
  await generateText({ model, messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: [calls['ai-sdk'][0]] }, ...ai] });
  assert.match(model.doGenerateCalls[0].prompt.at(-1).content[0].output.value, /no longer available/);
});

test('an unknown or expired id is answered with text the model can act on; a bad call is a CtxpackError with its path', async () => {
  const stash = await Stash.open({ backend: 'memory' });
  const gone = await answerHistoryImageCall(stash, { type: 'tool_use', id: 't', name: 'get_history_image', input: { image_md5: '0'.repeat(32) } }, { format: 'anthropic' });
  assert.equal(gone[0].content[0].type, 'tool_result');
  assert.deepEqual(gone[0].content[0].content.map((b) => b.type), ['text']);
  assert.match(gone[0].content[0].content[0].text, /no longer available.*share it again/);
  const openai = await answerHistoryImageCall(stash, { id: 'c', type: 'function', function: { name: 'get_history_image', arguments: '{"image_md5":"nope"}' } }, { format: 'openai' });
  assert.equal(openai.length, 1, 'no image: the tool message alone');
  const expect = async (call, format, path) => {
    await assert.rejects(answerHistoryImageCall(stash, call, { format }), (e) => e instanceof CtxpackError && e.code === 'INVALID_ARGUMENT' && e.path === path);
  };
  await expect({ id: 'c', function: { name: 'get_history_image', arguments: '{oops' } }, 'openai', 'call.function.arguments');
  await expect({ id: 'c', function: { name: 'search', arguments: '{}' } }, 'openai', 'call.function.name');
  await expect({ type: 'tool_use', id: 't', name: 'get_history_image', input: {} }, 'anthropic', 'call.input.image_md5');
  await expect({ type: 'function_call', call_id: 'c', name: 'get_history_image', arguments: '{"image_md5":7}' }, 'openai-responses', 'call.arguments.image_md5');
  await expect({ functionCall: { name: 'get_history_image', args: {} } }, 'gemini', 'call.functionCall.args.image_md5');
  await expect({ type: 'tool-call', toolCallId: 'c', toolName: 'search', input: {} }, 'ai-sdk', 'call.toolName');
  await expect({ id: 'c', name: 'get_history_image' }, 'langchain', 'call.args');
  await expect({ name: 'get_history_image', arguments: { md5: id } }, 'mcp', 'call.arguments.image_md5');
  await expect('get_history_image', 'mcp', 'call');
  await assert.rejects(answerHistoryImageCall(stash, {}, {}), (e) => e.code === 'INVALID_OPTION' && e.path === 'options.format');
});

// test-results/ is ignored by git: a fresh checkout does not have it.
mkdirSync(path.join(ROOT, 'test-results'), { recursive: true });
const tmp = mkdtempSync(path.join(ROOT, 'test-results', 'answers-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

test('every answer type-checks under tsc --strict as the SDK’s own type', () => {
  assert.equal(typed.length, 13);
  const short = (v) => JSON.stringify(v, (k, x) => (typeof x === 'string' && x.length > 200 ? x.slice(0, 16) : x), 2);
  const imports = [...new Set(typed.map(([imp]) => imp))].join('\n');
  const source = `${imports}\n\n${typed.map(([, type, value], i) => `export const answer${i}: ${type} = ${short(value)};\n`).join('\n')}`;
  writeFileSync(path.join(tmp, 'answers.ts'), source);
  writeFileSync(path.join(tmp, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true, skipLibCheck: true, types: ['node'], lib: ['es2022', 'dom'] },
    files: ['answers.ts'],
  }));
  const r = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', tmp, '--pretty', 'false'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr + source.slice(0, 3000));
});
