// A loop of tools the browser runs, in `useChat`'s UIMessages: one prompt
// with a mockup, then one assistant message whose twelve steps each start
// with `step-start` and hold a `tool-screenshot` part answered (by
// `addToolOutput`) with a screenshot, an output that is already the model's
// (`{type:'content', value}`, which the tool's `toModelOutput` passes on).
// Before each request the browser compacts the messages with
// `compactUIMessages` (`keepRecentImages: 2, slack: false`); the route
// checks them with the AI SDK's own `validateUIMessages`, turns them into
// model messages with `convertToModelMessages` and sends them with
// `generateText` on a capturing `fetch`. The last request carries the
// mockup and the newest 3 screenshots as images, the other 9 as
// placeholders in their tool results; `expandContext` gives the messages
// back exactly.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { convertToModelMessages, generateText, jsonSchema, tool, validateUIMessages } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import { Stash, expandContext } from 'ctxpack';
import { compactUIMessages } from 'ctxpack/ai-sdk';
import { REPLIES, capturingFetch } from './support/wire.mjs';
import { makeImage } from '../fixtures/make.mjs';

const STEPS = 12;
const md5 = (s) => createHash('md5').update(s).digest('hex');

async function image(format, seed) {
  const b64 = (await makeImage(format, 48, 32, seed)).toString('base64');
  return { b64, placeholder: `[Picture:history_${md5(b64)}]` };
}
const mockup = await image('jpeg', 3000);
const shots = await Promise.all(Array.from({ length: STEPS }, (_, n) => image('png', 700 + n)));

const tools = {
  screenshot: tool({
    description: 'Takes a screenshot of the page.',
    inputSchema: jsonSchema({ type: 'object', properties: {} }),
    // The output is the model's already: content with the screenshot.
    toModelOutput: ({ output }) => output,
  }),
};

/** The prompt, and the assistant message of `steps` steps so far. */
function messages(steps) {
  const parts = shots.slice(0, steps).flatMap((shot, n) => [
    { type: 'step-start' },
    {
      type: 'tool-screenshot',
      toolCallId: `call_${n}`,
      state: 'output-available',
      input: {},
      output: { type: 'content', value: [{ type: 'text', text: `step ${n}` }, { type: 'image-data', data: shot.b64, mediaType: 'image/png' }] },
    },
  ]);
  return [
    { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Build this page.' }, { type: 'file', mediaType: 'image/jpeg', url: `data:image/jpeg;base64,${mockup.b64}` }] },
    { id: 'a1', role: 'assistant', parts },
  ];
}

test('useChat tool loop: compacted UIMessages pass validateUIMessages and send the prompt whole, 3 screenshots inline and 9 placeholders', async () => {
  const stash = await Stash.open({ backend: 'memory' });
  let sent;
  let compacted;
  for (let steps = 1; steps <= STEPS; steps++) {
    compacted = await compactUIMessages(messages(steps), { stash, keepRecentImages: 2, slack: false });
    const valid = await validateUIMessages({ messages: compacted, tools });
    const { fetch, bodies } = capturingFetch([REPLIES.responses.text('ok')]);
    const model = createOpenAI({ apiKey: 'test', fetch })('gpt-5');
    await generateText({ model, tools, messages: await convertToModelMessages(valid, { tools }) });
    sent = bodies[0];
  }
  const text = JSON.stringify(sent);
  assert.ok(text.includes(mockup.b64), 'the prompt is sent whole');
  shots.forEach((shot, n) => {
    const stashed = n < STEPS - 3;
    assert.equal(text.includes(shot.b64), !stashed, `screenshot ${n} inline`);
    assert.equal(text.includes(shot.placeholder), stashed, `screenshot ${n} as its placeholder`);
  });
  // Each placeholder is in its own tool result, as text.
  const outputs = sent.input.filter((item) => item.type === 'function_call_output');
  assert.equal(outputs.length, STEPS);
  outputs.slice(0, STEPS - 3).forEach((item, n) => {
    assert.deepEqual(item.output.find((p) => p.type === 'input_text' && p.text.startsWith('[Picture')), { type: 'input_text', text: shots[n].placeholder });
  });
  const { messages: back } = await expandContext(compacted, { stash, format: 'ui-message' });
  assert.deepEqual(back, messages(STEPS));
});
