// Agent loops on the wire: the AI SDK's `generateText` with a tool loop
// (`stopWhen`), its model wrapped in `ctxpackMiddleware` with
// `keepRecentImages: 2, slack: false`, on each real provider built with a
// capturing `fetch`. One prompt (text and a mockup), then twelve
// `screenshot` calls, each answered with a new screenshot. In every request
// the prompt's mockup goes whole, the newest screenshot (not answered yet)
// and the two before it inline, and every older one as its placeholder in
// the tool result, where that API takes text. The same loop run by a
// LangChain agent (`createAgent` with `ChatAnthropic`, the package's
// middleware) sends the same.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogle } from '@ai-sdk/google';
import { ChatAnthropic } from '@langchain/anthropic';
import { HumanMessage } from '@langchain/core/messages';
import { tool as langchainTool } from '@langchain/core/tools';
import { createAgent } from 'langchain';
import { Stash } from 'ctxpack';
import { ctxpackMiddleware } from 'ctxpack/ai-sdk';
import { ctxpackMiddleware as langchainMiddleware } from 'ctxpack/langchain';
import { REPLIES, capturingFetch } from './support/wire.mjs';
import { makeImage } from '../fixtures/make.mjs';

const STEPS = 12;
const md5 = (s) => createHash('md5').update(s).digest('hex');

/** An image: its base64, a slice of it no other image holds, and its placeholder. */
async function image(format, seed) {
  const b64 = (await makeImage(format, 48, 32, seed)).toString('base64');
  const at = Math.floor(b64.length / 2);
  return { b64, probe: b64.slice(at, at + 40), placeholder: `[Picture:history_${md5(b64)}]` };
}

const mockup = await image('jpeg', 1000);
const shots = await Promise.all(Array.from({ length: STEPS }, (_, n) => image('png', n + 1)));

/** Each API's reply calling `screenshot` as step `n`. */
const CALLS = {
  responses: (n) => ({
    ...REPLIES.responses.call(''),
    id: `resp_${n}`,
    output: [{ type: 'function_call', id: `fc_${n}`, call_id: `call_${n}`, name: 'screenshot', arguments: '{}', status: 'completed' }],
  }),
  anthropic: (n) => ({
    ...REPLIES.anthropic.call(''),
    // Ids of their own: LangChain's agent state merges messages by id.
    id: `msg_call_${n}`,
    content: [{ type: 'tool_use', id: `toolu_${n}`, name: 'screenshot', input: {} }],
  }),
  gemini: () => ({
    ...REPLIES.gemini.call(''),
    candidates: [{ index: 0, content: { role: 'model', parts: [{ functionCall: { name: 'screenshot', args: {} } }] }, finishReason: 'STOP' }],
  }),
  interactions: (n) => ({
    ...REPLIES.interactions.call(''),
    id: `int_${n}`,
    steps: [{ type: 'function_call', id: `fc_${n}`, name: 'screenshot', arguments: {} }],
  }),
};

/** Each provider: the API its body is in, and its model built on a `fetch`. */
const PROVIDERS = [
  { name: 'openai.responses', api: 'responses', model: (fetch) => createOpenAI({ apiKey: 'test', fetch })('gpt-5') },
  { name: 'anthropic.messages', api: 'anthropic', model: (fetch) => createAnthropic({ apiKey: 'test', fetch })('claude-sonnet-4-5') },
  { name: 'Gemini 2.5', api: 'gemini', model: (fetch) => createGoogle({ apiKey: 'test', fetch })('gemini-2.5-flash') },
  { name: 'Gemini 3', api: 'gemini', model: (fetch) => createGoogle({ apiKey: 'test', fetch })('gemini-3-pro-preview') },
  { name: 'Gemini Interactions', api: 'interactions', model: (fetch) => createGoogle({ apiKey: 'test', fetch }).interactions('gemini-3-flash-preview') },
];

/** The path (keys and indexes) of every string in `value` holding `needle`. */
function pathsOf(value, needle, path = [], out = []) {
  if (typeof value === 'string') {
    if (value.includes(needle)) out.push(path);
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => pathsOf(v, needle, [...path, i], out));
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) pathsOf(v, needle, [...path, k], out);
  }
  return out;
}

/** The objects on `path` from `root`. */
const chain = (root, path) => path.reduce((acc, k) => [...acc, acc.at(-1)?.[k]], [root]);

/** True when a placeholder at `path` of `body` sits in a tool result, as text. */
const IN_TOOL_RESULT = {
  responses: (body, path) => chain(body, path)[2]?.type === 'function_call_output' && path.at(-1) === 'text',
  anthropic: (body, path) => chain(body, path)[4]?.type === 'tool_result' && path.at(-1) === 'text',
  // Gemini: in the function response, or in a text part beside it in the same user turn.
  gemini: (body, path) => {
    const turn = chain(body, path)[2];
    return turn?.role === 'user' && turn.parts.some((p) => p.functionResponse);
  },
  interactions: (body, path) => {
    const step = chain(body, path)[2];
    const block = chain(body, path)[4];
    return (step?.type === 'function_result' || block?.type === 'function_result') && path.at(-1) === 'text';
  },
};

/**
 * Checks each request body of a 12-step loop in `api`: the mockup goes
 * once, whole; of the screenshots taken so far the newest 3 inline and the
 * others as placeholders in their tool results.
 */
function assertLoopBodies(api, bodies) {
  assert.equal(bodies.length, STEPS + 1);
  bodies.forEach((body, step) => {
    const text = JSON.stringify(body);
    assert.equal(pathsOf(body, mockup.probe).length, 1, `request ${step}: the mockup goes once, whole`);
    for (let n = 0; n < step; n++) {
      const stashed = n < step - 3;
      const inline = pathsOf(body, shots[n].probe).length;
      const placeholders = pathsOf(body, shots[n].placeholder);
      assert.equal(inline, stashed ? 0 : 1, `request ${step}: screenshot ${n} inline`);
      assert.equal(placeholders.length, stashed ? 1 : 0, `request ${step}: screenshot ${n} as its placeholder`);
      for (const path of placeholders) {
        assert.ok(IN_TOOL_RESULT[api](body, path), `request ${step}: the placeholder at ${path.join('.')} is in a tool result`);
      }
    }
    for (let n = step; n < STEPS; n++) assert.ok(!text.includes(shots[n].probe), `request ${step}: screenshot ${n} not taken yet`);
  });
}

test('LangChain: an agent\'s 12-step screenshot loop through ChatAnthropic sends the prompt whole, the newest 3 screenshots inline and the others as placeholders', async () => {
  const stash = await Stash.open({ backend: 'memory' });
  const replies = [...Array.from({ length: STEPS }, (_, n) => CALLS.anthropic(n)), REPLIES.anthropic.text('done')];
  const { fetch, bodies } = capturingFetch(replies);
  const model = new ChatAnthropic({ model: 'claude-sonnet-4-5', apiKey: 'test', clientOptions: { fetch } });
  let taken = 0;
  const screenshot = langchainTool(
    async () => [{ type: 'image_url', image_url: { url: `data:image/png;base64,${shots[taken++].b64}` } }],
    { name: 'screenshot', description: 'Takes a screenshot of the page.', schema: { type: 'object', properties: {} } },
  );
  const agent = createAgent({ model, tools: [screenshot], middleware: [langchainMiddleware({ stash, keepRecentImages: 2, slack: false })] });
  const prompt = new HumanMessage({ content: [{ type: 'text', text: 'Build this page.' }, { type: 'image_url', image_url: { url: `data:image/jpeg;base64,${mockup.b64}` } }] });
  const result = await agent.invoke({ messages: [prompt] }, { recursionLimit: 100 });
  assert.equal(result.messages.at(-1).text, 'done');
  assertLoopBodies('anthropic', bodies);
});

for (const p of PROVIDERS) {
  test(`${p.name}: a 12-step screenshot loop sends the prompt whole, the newest 3 screenshots inline and the others as placeholders`, async () => {
    const stash = await Stash.open({ backend: 'memory' });
    const replies = [...Array.from({ length: STEPS }, (_, n) => CALLS[p.api](n)), REPLIES[p.api].text('done')];
    const { fetch, bodies } = capturingFetch(replies);
    const model = wrapLanguageModel({ model: p.model(fetch), middleware: ctxpackMiddleware({ stash, keepRecentImages: 2, slack: false }) });
    let taken = 0;
    const screenshot = tool({
      description: 'Takes a screenshot of the page.',
      inputSchema: jsonSchema({ type: 'object', properties: {} }),
      execute: async () => ({ n: taken++ }),
      toModelOutput: ({ output }) => ({ type: 'content', value: [{ type: 'file', mediaType: 'image/png', data: { type: 'data', data: shots[output.n].b64 } }] }),
    });
    const result = await generateText({
      model,
      tools: { screenshot },
      stopWhen: stepCountIs(STEPS + 1),
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Build this page.' }, { type: 'image', image: mockup.b64, mediaType: 'image/jpeg' }] }],
    });
    assert.equal(result.text, 'done');
    assertLoopBodies(p.api, bodies);
  });
}
