// What real client libraries accept: the compacted and expanded messages go
// through the AI SDK, the OpenAI and Anthropic SDKs and LangChain's message
// coercion, with only the transport stubbed (no network).
import test from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { generateText } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { coerceMessageLikeToMessage, HumanMessage } from '@langchain/core/messages';
import { Stash, compactContext, expandContext } from 'ctxpack';
import { makeImage } from '../fixtures/make.mjs';

const md5 = (s) => createHash('md5').update(s).digest('hex');
const images = async () => [(await makeImage('jpeg', 40, 30, 61)).toString('base64'), (await makeImage('png', 30, 20, 62)).toString('base64')];

/** A fetch that records the request body and answers with `reply`. */
function capturingFetch(reply) {
  const calls = [];
  const fetch = async (url, init) => {
    calls.push({ url: String(url), body: JSON.parse(init.body) });
    return new Response(JSON.stringify(reply), { status: 200, headers: { 'content-type': 'application/json' } });
  };
  return { fetch, calls };
}

test('AI SDK generateText: placeholders as text, the newest image intact', async () => {
  const [old, fresh] = await images();
  const messages = [
    { role: 'user', content: [{ type: 'image', image: old, mediaType: 'image/jpeg' }, { type: 'text', text: '这是什么？' }] },
    { role: 'assistant', content: [{ type: 'text', text: '这是一只猫...' }] },
    { role: 'user', content: [{ type: 'image', image: fresh, mediaType: 'image/png' }, { type: 'text', text: '这张新图呢？' }] },
  ];
  const stash = await Stash.open({ backend: 'memory' });
  const { messages: compacted } = await compactContext(messages, { stash });
  const model = new MockLanguageModelV3({
    doGenerate: async () => ({
      content: [{ type: 'text', text: 'ok' }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
      warnings: [],
    }),
  });
  const { text } = await generateText({ model, messages: compacted });
  assert.equal(text, 'ok');
  const prompt = model.doGenerateCalls[0].prompt;
  assert.equal(prompt[0].content[0].type, 'text');
  assert.equal(prompt[0].content[0].text, `[Picture:history_${md5(old)}]`);
  const file = prompt[2].content[0];
  assert.equal(file.type, 'file');
  assert.equal(file.mediaType, 'image/png');
  const data = typeof file.data === 'string' ? file.data : Buffer.from(file.data).toString('base64');
  assert.equal(data, fresh);

  const { messages: expanded } = await expandContext(compacted, { stash });
  await generateText({ model, messages: expanded });
  const full = model.doGenerateCalls[1].prompt;
  assert.equal(full[0].content[0].type, 'file');
  assert.equal(full[0].content[0].mediaType, 'image/jpeg');
});

test('OpenAI SDK: the request body carries placeholders and the newest data URL', async () => {
  const [old, fresh] = await images();
  const messages = [
    { role: 'system', content: 'You are helpful.' },
    { role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/jpeg;base64,${old}`, detail: 'high' } }, { type: 'text', text: 'what is this?' }] },
    { role: 'assistant', content: 'a cat' },
    { role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${fresh}` } }, { type: 'text', text: 'and this?' }] },
  ];
  const stash = await Stash.open({ backend: 'memory' });
  const { messages: compacted } = await compactContext(messages, { stash });
  const { fetch, calls } = capturingFetch({
    id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'gpt-test',
    choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  });
  const client = new OpenAI({ apiKey: 'test', baseURL: 'http://127.0.0.1:9/v1', fetch, maxRetries: 0 });
  const res = await client.chat.completions.create({ model: 'gpt-test', messages: compacted });
  assert.equal(res.choices[0].message.content, 'ok');
  const body = calls[0].body;
  assert.deepEqual(body.messages[1].content[0], { type: 'text', text: `[Picture:history_${md5(old)}]` });
  assert.equal(body.messages[3].content[0].image_url.url, `data:image/png;base64,${fresh}`);
  assert.ok(!JSON.stringify(body.messages.slice(0, 3)).includes(old.slice(0, 40)));
});

test('Anthropic SDK: the request body carries placeholders and the newest image block', async () => {
  const [old, fresh] = await images();
  const messages = [
    { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: old } }, { type: 'text', text: 'what is this?' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'a cat' }] },
    { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: fresh } }, { type: 'text', text: 'and this?' }] },
  ];
  const stash = await Stash.open({ backend: 'memory' });
  const { messages: compacted } = await compactContext(messages, { stash });
  const { fetch, calls } = capturingFetch({
    id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-test',
    content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn', stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  });
  const client = new Anthropic({ apiKey: 'test', baseURL: 'http://127.0.0.1:9', fetch, maxRetries: 0 });
  const res = await client.messages.create({ model: 'claude-test', max_tokens: 64, messages: compacted });
  assert.equal(res.content[0].text, 'ok');
  const body = calls[0].body;
  assert.deepEqual(body.messages[0].content[0], { type: 'text', text: `[Picture:history_${md5(old)}]` });
  assert.deepEqual(body.messages[2].content[0].source, { type: 'base64', media_type: 'image/png', data: fresh });
});

test('LangChain: the dootask data flow coerces and round-trips', async () => {
  const [old, fresh] = await images();
  const context = [
    ['human', [{ type: 'image_url', image_url: { url: `data:image/jpeg;base64,${old}` } }, { type: 'text', text: '这是什么？' }]],
    ['assistant', '这是一只猫...'],
    ['human', '右上角那个东西是什么？'],
    ['assistant', '右上角是一个花瓶...'],
    ['human', [{ type: 'image_url', image_url: { url: `data:image/png;base64,${fresh}` } }, { type: 'text', text: '这张新图呢？' }]],
  ];
  const stash = await Stash.open({ backend: 'memory' });
  const { messages: compacted } = await compactContext(context, { stash, collapseText: true });
  const coerced = compacted.map((m) => coerceMessageLikeToMessage(m));
  assert.ok(coerced[0] instanceof HumanMessage);
  assert.equal(coerced[0].content, `[Picture:history_${md5(old)}] 这是什么？`);
  assert.equal(coerced[1].getType(), 'ai');
  assert.equal(coerced[4].content[0].image_url.url, `data:image/png;base64,${fresh}`);
  const { messages: back } = await expandContext(compacted, { stash });
  assert.deepEqual(back, context);
  const again = back.map((m) => coerceMessageLikeToMessage(m));
  assert.equal(again[0].content[0].image_url.url, `data:image/jpeg;base64,${old}`);
});
