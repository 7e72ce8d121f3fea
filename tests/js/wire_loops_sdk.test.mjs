// Agent loops through each provider's own SDK: the app keeps its loop (one
// prompt with a mockup, then a screenshot tool answered twelve times, in
// that API's tool-result shape), compacts it with `keepRecentImages: 2,
// slack: false` before each request and sends it with `responses.create`,
// `messages.create`, `models.generateContent` or `interactions.create` on a
// capturing `fetch`. The last request carries the mockup whole, the newest 3
// screenshots inline and the other 9 as placeholders in their tool results
// (where the API takes a picture and nothing else, a computer-use screenshot
// or a Gemini function response's media, as a picture of the placeholder);
// `expandContext` gives the loop back exactly.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { Stash, compactContext, expandContext } from 'ctxpack';
import { REPLIES, capturingFetch } from './support/wire.mjs';
import { makeImage } from '../fixtures/make.mjs';
import sharp from 'sharp';

const STEPS = 12;
const md5 = (s) => createHash('md5').update(s).digest('hex');

async function image(format, seed) {
  const b64 = (await makeImage(format, 48, 32, seed)).toString('base64');
  return { b64, placeholder: `[Picture:history_${md5(b64)}]` };
}
const mockup = await image('jpeg', 2000);
const shots = await Promise.all(Array.from({ length: STEPS }, (_, n) => image('png', 500 + n)));

/** Each API: the loop's prompt, call and answer, and the request its SDK sends. */
const APIS = [
  {
    name: 'openai responses.create',
    format: 'openai-responses',
    prompt: { role: 'user', content: [{ type: 'input_text', text: 'Build this page.' }, { type: 'input_image', image_url: `data:image/jpeg;base64,${mockup.b64}`, detail: 'auto' }] },
    step: (n, shot) => [
      { type: 'function_call', call_id: `call_${n}`, name: 'screenshot', arguments: '{}' },
      { type: 'function_call_output', call_id: `call_${n}`, output: [{ type: 'input_image', image_url: `data:image/png;base64,${shot}`, detail: 'auto' }] },
    ],
    async send(input) {
      const { fetch, bodies } = capturingFetch([REPLIES.responses.text('ok')]);
      await new OpenAI({ apiKey: 'test', fetch, maxRetries: 0 }).responses.create({ model: 'gpt-5', input });
      return { body: bodies[0], items: bodies[0].input };
    },
  },
  {
    // OpenAI computer use: a `computer_call_output` takes a screenshot and
    // nothing else, so a placeholder goes as a picture of its text.
    name: 'openai responses.create, computer use',
    format: 'openai-responses',
    prompt: { role: 'user', content: [{ type: 'input_text', text: 'Build this page.' }, { type: 'input_image', image_url: `data:image/jpeg;base64,${mockup.b64}`, detail: 'auto' }] },
    step: (n, shot) => [
      { type: 'computer_call', id: `cu_${n}`, call_id: `call_${n}`, action: { type: 'screenshot' }, pending_safety_checks: [], status: 'completed' },
      { type: 'computer_call_output', call_id: `call_${n}`, output: { type: 'computer_screenshot', image_url: `data:image/png;base64,${shot}` } },
    ],
    picture: (item) => item.output.image_url.replace(/^data:image\/png;base64,/, ''),
    async send(input) {
      const { fetch, bodies } = capturingFetch([REPLIES.responses.text('ok')]);
      await new OpenAI({ apiKey: 'test', fetch, maxRetries: 0 }).responses.create({
        model: 'computer-use-preview',
        tools: [{ type: 'computer_use_preview', display_width: 1024, display_height: 768, environment: 'browser' }],
        truncation: 'auto',
        input,
      });
      return { body: bodies[0], items: bodies[0].input };
    },
  },
  {
    name: 'anthropic messages.create',
    format: 'anthropic',
    prompt: { role: 'user', content: [{ type: 'text', text: 'Build this page.' }, { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: mockup.b64 } }] },
    step: (n, shot) => [
      { role: 'assistant', content: [{ type: 'tool_use', id: `toolu_${n}`, name: 'screenshot', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${n}`, content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: shot } }] }] },
    ],
    async send(messages) {
      const { fetch, bodies } = capturingFetch([REPLIES.anthropic.text('ok')]);
      await new Anthropic({ apiKey: 'test', fetch, maxRetries: 0 }).messages.create({ model: 'claude-sonnet-4-5', max_tokens: 100, messages });
      return { body: bodies[0], items: bodies[0].messages };
    },
  },
  {
    name: '@google/genai models.generateContent',
    format: 'gemini',
    prompt: { role: 'user', parts: [{ text: 'Build this page.' }, { inlineData: { mimeType: 'image/jpeg', data: mockup.b64 } }] },
    step: (n, shot) => [
      { role: 'model', parts: [{ functionCall: { id: `fc_${n}`, name: 'screenshot', args: {} } }] },
      { role: 'user', parts: [{ functionResponse: { id: `fc_${n}`, name: 'screenshot', response: { ok: true } } }, { inlineData: { mimeType: 'image/png', data: shot } }] },
    ],
    async send(contents) {
      const { fetch, bodies } = capturingFetch([REPLIES.gemini.text('ok')]);
      await new GoogleGenAI({ apiKey: 'test', httpOptions: { fetch } }).models.generateContent({ model: 'gemini-2.5-flash', contents });
      return { body: bodies[0], items: bodies[0].contents };
    },
  },
  {
    // Gemini 3's multimodal function responses: a `FunctionResponsePart`
    // takes media only, so a placeholder goes as a picture of its text.
    name: '@google/genai models.generateContent, functionResponse.parts',
    format: 'gemini',
    prompt: { role: 'user', parts: [{ text: 'Build this page.' }, { inlineData: { mimeType: 'image/jpeg', data: mockup.b64 } }] },
    step: (n, shot) => [
      { role: 'model', parts: [{ functionCall: { id: `fc_${n}`, name: 'screenshot', args: {} } }] },
      { role: 'user', parts: [{ functionResponse: { id: `fc_${n}`, name: 'screenshot', response: { ok: true }, parts: [{ inlineData: { mimeType: 'image/png', data: shot } }] } }] },
    ],
    picture: (item) => item.parts[0].functionResponse.parts[0].inlineData.data,
    async send(contents) {
      const { fetch, bodies } = capturingFetch([REPLIES.gemini.text('ok')]);
      await new GoogleGenAI({ apiKey: 'test', httpOptions: { fetch } }).models.generateContent({ model: 'gemini-3-flash-preview', contents });
      return { body: bodies[0], items: bodies[0].contents };
    },
  },
  {
    name: '@google/genai interactions.create',
    format: 'gemini-interactions',
    prompt: { type: 'user_input', content: [{ type: 'text', text: 'Build this page.' }, { type: 'image', data: mockup.b64, mime_type: 'image/jpeg' }] },
    step: (n, shot) => [
      { type: 'function_call', id: `fc_${n}`, name: 'screenshot', arguments: {} },
      { type: 'function_result', call_id: `fc_${n}`, name: 'screenshot', result: [{ type: 'image', data: shot, mime_type: 'image/png' }] },
    ],
    async send(input) {
      const original = globalThis.fetch;
      const { fetch, bodies } = capturingFetch([REPLIES.interactions.text('ok')]);
      globalThis.fetch = async (url, init) => {
        const request = url instanceof Request ? url : new Request(url, init);
        return fetch(request.url, { body: await request.text() });
      };
      try {
        await new GoogleGenAI({ apiKey: 'test' }).interactions.create({ model: 'gemini-3-flash-preview', input });
      } finally {
        globalThis.fetch = original;
      }
      return { body: bodies[0], items: bodies[0].input };
    },
  },
];

/**
 * The text of `item` a model reads for its image: where the API takes a
 * picture and nothing else, what the picture says (libvips decodes it and
 * reads its text chunk; it is a PNG of at least a line of glyphs);
 * elsewhere the item's text.
 */
async function placeholderIn(api, item) {
  const b64 = api.picture?.(item);
  if (!b64 || !b64.startsWith('iVBOR') || b64.length > 1000) return JSON.stringify(item);
  const { format, width, height, comments = [] } = await sharp(Buffer.from(b64, 'base64')).metadata();
  assert.equal(format, 'png');
  assert.ok(width > 500 && height >= 14, `${width}×${height}`);
  return comments.map((c) => c.text).join(' ');
}

for (const api of APIS) {
  test(`${api.name}: a 12-step screenshot loop, compacted before each request, sends the prompt whole, 3 screenshots inline and 9 placeholders`, async () => {
    const stash = await Stash.open({ backend: 'memory' });
    const loop = [api.prompt];
    let sent;
    let compacted;
    for (let n = 0; n < STEPS; n++) {
      loop.push(...api.step(n, shots[n].b64));
      ({ messages: compacted } = await compactContext(loop, { stash, format: api.format, keepRecentImages: 2, slack: false }));
      sent = await api.send(compacted);
    }
    const text = JSON.stringify(sent.body);
    assert.deepEqual(sent.items[0], api.prompt, 'the prompt is sent whole');
    for (const [n, shot] of shots.entries()) {
      const stashed = n < STEPS - 3;
      assert.equal(text.includes(shot.b64), !stashed, `screenshot ${n} inline`);
      // Each answer is the item after its call: the placeholder stays in it.
      const shown = await placeholderIn(api, sent.items[2 + 2 * n]);
      // Where only a picture may stand, a placeholder is one (the main
      // module has it drawn by the extras module), never its bare text.
      if (api.picture && stashed) assert.match(api.picture(sent.items[2 + 2 * n]) ?? '', /^iVBOR/, `screenshot ${n} as a picture`);
      assert.equal(shown.includes(shot.placeholder), stashed, `screenshot ${n} as its placeholder in its tool result`);
      if (!api.picture) assert.equal(text.includes(shot.placeholder), stashed, `screenshot ${n}'s placeholder`);
    }
    const { messages: back } = await expandContext(compacted, { stash, format: api.format });
    assert.deepEqual(back, loop);
  });
}
