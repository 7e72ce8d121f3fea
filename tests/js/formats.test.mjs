// The formats beyond OpenAI, Anthropic, AI SDK ModelMessage and LangChain,
// each in a realistic conversation with real images: compaction stashes the
// history images, expansion gives back exactly the input, and what both
// return passes the SDK's own validator (a runtime schema, or the SDK's
// TypeScript types under `tsc --strict`).
import test from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { compactContext, expandContext, detectFormat, Stash } from 'ctxpack';
import { validateUIMessages } from 'ai';
import { SamplingMessageSchema, CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { makeImage } from '../fixtures/make.mjs';
import sharp from 'sharp';
import { assertTypeChecks } from './support/typecheck.mjs';

const b64 = (buf) => Buffer.from(buf).toString('base64');
const dataUrl = (mime, buf) => `data:${mime};base64,${b64(buf)}`;
const md5 = (text) => createHash('md5').update(text).digest('hex');
const placeholder = (buf) => `[Picture:history_${md5(b64(buf))}]`;

/**
 * Type-checks `values` (name → JSON) as literals of `type` (`name` imported
 * from `module`, or an array of it with `name[]`) under `tsc --strict`: what
 * the SDK's own types accept.
 */
function typecheck(module, type, values) {
  const lines = [`import type { ${type.replace(/\[\]$/, '')} } from '${module}';`];
  for (const [name, value] of Object.entries(values)) {
    lines.push(`export const ${name}: ${type} = ${JSON.stringify(value, null, 1)};`);
  }
  assertTypeChecks(lines.join('\n') + '\n', 'formats-');
}

/** Compacts and expands `messages` with a memory stash, checking what every format guarantees. */
async function roundTrip(format, messages, { stashed, newest }) {
  assert.equal(detectFormat(messages), format);
  const before = structuredClone(messages);
  const stash = await Stash.open({ backend: 'memory' });
  const compacted = await compactContext(messages, { stash });
  assert.equal(compacted.report.format, format);
  assert.equal(compacted.report.stashed, stashed, JSON.stringify(compacted.report.failures));
  assert.equal(compacted.report.newestUserIndex, newest);
  for (let i = newest; i < messages.length; i++) {
    assert.equal(compacted.messages[i], messages[i], `messages[${i}] is the caller's own, untouched`);
  }
  assert.ok(compacted.report.bytesAfter < compacted.report.bytesBefore);
  const again = await compactContext(compacted.messages, { stash });
  assert.deepEqual(again.messages, compacted.messages, 'compaction is idempotent');
  assert.equal(again.report.stashed, 0);
  const expanded = await expandContext(compacted.messages, { stash });
  assert.equal(expanded.report.format, format);
  assert.deepEqual(expanded.report.missing, []);
  assert.deepEqual(expanded.messages, messages, 'expand(compact(x)) == x');
  assert.equal(JSON.stringify(expanded.messages), JSON.stringify(messages), 'key order is kept');
  assert.deepEqual(messages, before, "the caller's messages are not mutated");
  return { compacted: compacted.messages, expanded: expanded.messages };
}

test('ui-message: useChat messages with image file parts and tool parts', async () => {
  const photo = await makeImage('jpeg', 320, 240, 7);
  const chart = await makeImage('png', 200, 120, 8);
  const shot = await makeImage('png', 64, 64, 9);
  const messages = [
    {
      id: 'msg-1',
      role: 'user',
      parts: [
        { type: 'file', mediaType: 'image/jpeg', filename: 'photo.jpg', url: dataUrl('image/jpeg', photo) },
        { type: 'text', text: '这是什么？' },
      ],
      metadata: { createdAt: 1714000000000 },
    },
    {
      id: 'msg-2',
      role: 'assistant',
      parts: [
        { type: 'step-start' },
        {
          type: 'tool-screenshot',
          toolCallId: 'call-1',
          state: 'output-available',
          input: { region: 'top-right' },
          output: { url: dataUrl('image/png', shot) },
        },
        { type: 'text', text: '这是一只猫，右上角是一个花瓶。', state: 'done' },
      ],
    },
    {
      id: 'msg-3',
      role: 'user',
      parts: [
        {
          type: 'file',
          mediaType: 'image/png',
          url: dataUrl('image/png', chart),
          providerMetadata: { anthropic: { cacheControl: { type: 'ephemeral' } } },
        },
        { type: 'file', mediaType: 'image/png', url: 'https://example.com/logo.png' },
        { type: 'text', text: '这张新图呢？' },
      ],
    },
  ];
  await validateUIMessages({ messages });
  await assert.rejects(
    validateUIMessages({ messages: [{ id: 'x', role: 'user', parts: [{ type: 'file', mediaType: 'image/png', url: 1 }] }] }),
    'the validator is a real one',
  );
  const { compacted, expanded } = await roundTrip('ui-message', messages, { stashed: 1, newest: 2 });
  assert.deepEqual(compacted[0].parts[0], { type: 'text', text: placeholder(photo) });
  assert.deepEqual(compacted[1], messages[1], 'tool outputs are passed through');
  await validateUIMessages({ messages: compacted });
  await validateUIMessages({ messages: expanded });

  // An older image with provider metadata: the placeholder keeps it.
  const later = [
    ...messages,
    { id: 'msg-4', role: 'assistant', parts: [{ type: 'text', text: '一张柱状图。' }] },
    { id: 'msg-5', role: 'user', parts: [{ type: 'text', text: '谢谢' }] },
  ];
  const { compacted: c2 } = await roundTrip('ui-message', later, { stashed: 2, newest: 4 });
  assert.deepEqual(c2[2].parts[0], {
    type: 'text',
    text: placeholder(chart),
    providerMetadata: { anthropic: { cacheControl: { type: 'ephemeral' } } },
  });
  assert.equal(c2[2].parts[1].url, 'https://example.com/logo.png');
  await validateUIMessages({ messages: c2 });
});

test('openai-responses: input items with images in messages and function call outputs', async () => {
  const photo = await makeImage('jpeg', 320, 240, 11);
  const screen = await makeImage('png', 160, 100, 12);
  const chart = await makeImage('png', 200, 120, 13);
  const input = [
    { role: 'developer', content: 'You are a helpful assistant.' },
    {
      role: 'user',
      content: [
        { type: 'input_text', text: '这是什么？' },
        { type: 'input_image', image_url: dataUrl('image/jpeg', photo), detail: 'high' },
      ],
    },
    { type: 'function_call', call_id: 'call_1', name: 'screenshot', arguments: '{"region":"top-right"}', id: 'fc_1', status: 'completed' },
    {
      type: 'function_call_output',
      call_id: 'call_1',
      output: [
        { type: 'input_text', text: 'Screenshot of the top right corner.' },
        { type: 'input_image', image_url: dataUrl('image/png', screen), detail: 'low' },
      ],
    },
    {
      type: 'message',
      role: 'assistant',
      id: 'msg_1',
      status: 'completed',
      content: [{ type: 'output_text', text: '这是一只猫，右上角是一个花瓶。', annotations: [] }],
    },
    {
      role: 'user',
      content: [
        { type: 'input_image', image_url: dataUrl('image/png', chart), detail: 'auto' },
        { type: 'input_image', file_id: 'file-abc123', detail: 'auto' },
        { type: 'input_text', text: '这张新图呢？' },
      ],
      type: 'message',
    },
  ];
  const { compacted, expanded } = await roundTrip('openai-responses', input, { stashed: 2, newest: 5 });
  assert.deepEqual(compacted[1].content[1], { type: 'input_text', text: placeholder(photo) });
  assert.deepEqual(compacted[3].output[1], { type: 'input_text', text: placeholder(screen) });
  assert.deepEqual(compacted[2], input[2]);
  typecheck('openai/resources/responses/responses', 'ResponseInput', { input, compacted, expanded });
});

test('gemini: contents with inline images, a function call and its response', async () => {
  const photo = await makeImage('jpeg', 320, 240, 21);
  const screen = await makeImage('png', 160, 100, 22);
  const chart = await makeImage('png', 200, 120, 23);
  const contents = [
    {
      role: 'user',
      parts: [
        { text: '这是什么？' },
        { inlineData: { mimeType: 'image/jpeg', data: b64(photo) } },
      ],
    },
    { role: 'model', parts: [{ functionCall: { id: 'fc-1', name: 'screenshot', args: { region: 'top-right' } } }] },
    {
      role: 'user',
      parts: [
        {
          functionResponse: {
            id: 'fc-1',
            name: 'screenshot',
            response: { output: 'captured' },
            parts: [{ inlineData: { mimeType: 'image/png', data: b64(screen) } }],
          },
        },
      ],
    },
    { role: 'model', parts: [{ text: '这是一只猫，右上角是一个花瓶。' }] },
    {
      role: 'user',
      parts: [
        { inlineData: { mimeType: 'image/png', data: b64(chart) } },
        { fileData: { mimeType: 'image/png', fileUri: 'gs://example-bucket/logo.png' } },
        { text: '这张新图呢？' },
      ],
    },
  ];
  const { compacted, expanded } = await roundTrip('gemini', contents, { stashed: 2, newest: 4 });
  assert.deepEqual(compacted[0].parts[1], { text: placeholder(photo) });
  // A FunctionResponsePart takes media only: the placeholder goes as a
  // picture of its text, which libvips reads as a PNG naming it.
  const { parts, ...response } = compacted[2].parts[0].functionResponse;
  const { parts: _, ...original } = contents[2].parts[0].functionResponse;
  assert.deepEqual(response, original);
  assert.equal(parts.length, 1);
  assert.equal(parts[0].inlineData.mimeType, 'image/png');
  const picture = await sharp(Buffer.from(parts[0].inlineData.data, 'base64')).metadata();
  assert.equal(picture.format, 'png');
  assert.deepEqual(picture.comments, [{ keyword: 'Comment', text: placeholder(screen) }]);
  typecheck('@google/genai', 'Content[]', { contents, compacted, expanded });
});

/** Every message passes the MCP SDK's schema, and every tool result's content is a valid `CallToolResult`. */
function validateMcp(messages) {
  for (const [i, m] of messages.entries()) {
    const r = SamplingMessageSchema.safeParse(m);
    assert.ok(r.success, `messages[${i}]: ${r.error?.message}`);
    for (const block of [m.content].flat()) {
      if (block.type === 'tool_result') {
        const t = CallToolResultSchema.safeParse({ content: block.content, isError: block.isError });
        assert.ok(t.success, `messages[${i}] tool result: ${t.error?.message}`);
      }
    }
  }
}

test('mcp: sampling messages with image blocks, audio, resources and tool results', async () => {
  const photo = await makeImage('jpeg', 320, 240, 31);
  const screen = await makeImage('png', 160, 100, 32);
  const page = await makeImage('webp', 120, 90, 33);
  const chart = await makeImage('png', 200, 120, 34);
  const messages = [
    { role: 'user', content: { type: 'image', data: b64(photo), mimeType: 'image/jpeg' } },
    { role: 'assistant', content: { type: 'text', text: '这是一只猫。' } },
    {
      role: 'user',
      content: [
        { type: 'audio', data: 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=', mimeType: 'audio/wav' },
        { type: 'text', text: '右上角是什么？' },
      ],
    },
    { role: 'assistant', content: { type: 'tool_use', id: 'tool-1', name: 'screenshot', input: { region: 'top-right' } } },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          toolUseId: 'tool-1',
          content: [
            { type: 'text', text: 'Captured the top right corner.' },
            { type: 'image', data: b64(screen), mimeType: 'image/png', annotations: { audience: ['assistant'] } },
            { type: 'resource', resource: { uri: 'file:///tmp/page.webp', mimeType: 'image/webp', blob: b64(page) } },
          ],
          isError: false,
        },
      ],
    },
    { role: 'assistant', content: { type: 'text', text: '右上角是一个花瓶。' } },
    {
      role: 'user',
      content: [
        { type: 'image', data: b64(chart), mimeType: 'image/png' },
        { type: 'text', text: '这张新图呢？' },
      ],
      _meta: { requestId: 'r-7' },
    },
  ];
  validateMcp(messages);
  assert.equal(SamplingMessageSchema.safeParse({ role: 'user', content: { type: 'image', data: '@@', mimeType: 'image/png' } }).success, false, 'the schema is a real one');
  const { compacted, expanded } = await roundTrip('mcp', messages, { stashed: 3, newest: 6 });
  assert.deepEqual(compacted[0].content, { type: 'text', text: placeholder(photo) });
  assert.deepEqual(compacted[2], messages[2], 'audio passes through');
  assert.deepEqual(compacted[4].content[0].content[1], { type: 'text', text: placeholder(screen) });
  assert.deepEqual(compacted[4].content[0].content[2], { type: 'text', text: placeholder(page) });
  validateMcp(compacted);
  validateMcp(expanded);
});

test('ollama: images outside content become placeholder lines and come back in order', async () => {
  const photo = await makeImage('jpeg', 320, 240, 41);
  const sketch = await makeImage('png', 90, 60, 42);
  const screen = await makeImage('png', 160, 100, 43);
  const chart = await makeImage('png', 200, 120, 44);
  const messages = [
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: '这两张图是什么？', images: [b64(photo), b64(sketch)] },
    {
      role: 'assistant',
      content: '',
      thinking: 'I should look at the corner.',
      tool_calls: [{ function: { name: 'screenshot', arguments: { region: 'top-right' } } }],
    },
    { role: 'tool', tool_name: 'screenshot', content: '', images: [b64(screen)] },
    { role: 'assistant', content: '一只猫和一张草图；右上角是一个花瓶。' },
    { role: 'user', content: '这张新图呢？', images: [b64(chart)] },
  ];
  const { compacted, expanded } = await roundTrip('ollama', messages, { stashed: 3, newest: 5 });
  assert.deepEqual(compacted[1], {
    role: 'user',
    content: `这两张图是什么？\n${placeholder(photo)}\n${placeholder(sketch)}`,
    images: [],
  });
  assert.deepEqual(compacted[3], { role: 'tool', tool_name: 'screenshot', content: `\n${placeholder(screen)}`, images: [] });
  typecheck('ollama', 'Message[]', { messages, compacted, expanded });
});
