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
import { makeImage } from '../fixtures/make.mjs';

const b64 = (buf) => Buffer.from(buf).toString('base64');
const dataUrl = (mime, buf) => `data:${mime};base64,${b64(buf)}`;
const md5 = (text) => createHash('md5').update(text).digest('hex');
const placeholder = (buf) => `[Picture:history_${md5(b64(buf))}]`;

/** Compacts and expands `messages` with a memory stash, checking what every format guarantees. */
async function roundTrip(format, messages, { stashed, newest }) {
  assert.equal(detectFormat(messages), format);
  const before = structuredClone(messages);
  const stash = await Stash.open({ backend: 'memory' });
  const compacted = await compactContext(messages, { stash });
  assert.equal(compacted.report.format, format);
  assert.equal(compacted.report.stashed, stashed, JSON.stringify(compacted.report.failures));
  assert.equal(compacted.report.newestUserIndex, newest);
  assert.deepEqual(compacted.messages.slice(newest), messages.slice(newest), 'the newest turn is untouched');
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
