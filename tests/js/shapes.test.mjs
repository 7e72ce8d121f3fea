// Images given as bytes or URLs, today's part shapes, and restoring every
// part exactly as it was stashed — through the package as Node loads it, and
// through the AI SDK 7's own prompt conversion with its mock model.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { generateText } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { Stash, compactContext, expandContext, getHistoryImage } from 'ctxpack';
import { makeImage } from '../fixtures/make.mjs';

const md5 = (s) => createHash('md5').update(s).digest('hex');

/** A mock AI SDK 7 model that records each prompt. */
function mockModel() {
  return new MockLanguageModelV4({
    doGenerate: async () => ({
      content: [{ type: 'text', text: 'ok' }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
      warnings: [],
    }),
  });
}

/** The bytes of a prompt file part's data, whatever form the SDK gives it in. */
function bytesOf(data) {
  if (typeof data === 'string') return Buffer.from(data, 'base64');
  if (data?.type === 'data') return bytesOf(data.data);
  if (data instanceof URL) throw new Error(`a URL, not bytes: ${data}`);
  return Buffer.from(data);
}

test('bytes are stashed as the image they hold and come back as the same kind of value', async () => {
  const png = await makeImage('png', 40, 30, 71);
  const jpeg = await makeImage('jpeg', 40, 30, 72);
  const gif = await makeImage('gif', 20, 20, 73);
  const u8 = new Uint8Array(png);
  const ab = jpeg.buffer.slice(jpeg.byteOffset, jpeg.byteOffset + jpeg.byteLength);
  const messages = [
    {
      role: 'user',
      content: [
        { type: 'file', data: u8, mediaType: 'image/png' },
        { type: 'image', image: ab, mediaType: 'image/jpeg' },
        { type: 'file', mediaType: 'image', data: { type: 'data', data: gif } },
        { type: 'text', text: 'three pictures' },
      ],
    },
    { role: 'assistant', content: [{ type: 'text', text: 'seen' }] },
    { role: 'user', content: [{ type: 'text', text: 'which is brightest?' }] },
  ];
  const stash = await Stash.open({ backend: 'memory' });
  const { messages: compacted, report } = await compactContext(messages, { stash });
  assert.equal(report.stashed, 3);
  const ids = [png, jpeg, gif].map((b) => md5(b.toString('base64')));
  assert.notEqual(ids[0], md5(''), 'not the md5 of zero bytes');
  assert.deepEqual(
    compacted[0].content.slice(0, 3).map((p) => p.text),
    ids.map((id) => `[Picture:history_${id}]`),
  );
  // The stash holds the images themselves.
  const [back] = await getHistoryImage(stash, ids[0], { format: 'openai' });
  assert.equal(back.image_url.url, `data:image/png;base64,${png.toString('base64')}`);

  const { messages: expanded } = await expandContext(compacted, { stash });
  const [p0, p1, p2] = expanded[0].content;
  assert.ok(p0.data instanceof Uint8Array && !Buffer.isBuffer(p0.data), 'a Uint8Array stays a Uint8Array');
  assert.deepEqual(Buffer.from(p0.data), png);
  assert.ok(p1.image instanceof ArrayBuffer, 'an ArrayBuffer stays an ArrayBuffer');
  assert.deepEqual(Buffer.from(p1.image), jpeg);
  assert.ok(Buffer.isBuffer(p2.data.data), 'a Buffer stays a Buffer');
  assert.deepEqual(p2.data.data, gif);
  assert.deepEqual({ ...p0, data: null }, { ...messages[0].content[0], data: null });
  assert.deepEqual({ ...p2, data: { ...p2.data, data: null } }, { ...messages[0].content[2], data: { type: 'data', data: null } });
  // The caller's values were not touched.
  assert.deepEqual(Buffer.from(u8), png);
});

test('URL objects are left untouched, never stashed as empty images', async () => {
  const url = new URL('https://example.com/cat.png');
  const fileUrl = new URL('https://example.com/chart.png');
  const messages = [
    { role: 'user', content: [{ type: 'image', image: url }, { type: 'file', data: fileUrl, mediaType: 'image/png' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
    { role: 'user', content: [{ type: 'text', text: 'and now?' }] },
  ];
  const stash = await Stash.open({ backend: 'memory' });
  const { messages: compacted, report } = await compactContext(messages, { stash });
  assert.equal(report.stashed, 0);
  assert.equal(report.urls, 2);
  assert.equal(compacted[0], messages[0], 'the message is the caller’s own value');
  assert.equal(compacted[0].content[0].image, url);
  assert.deepEqual(await stash.list(), []);
});

test('AI SDK 7: tagged file data is compacted; the mock model sees placeholders, then the original bytes after expansion', async () => {
  const old = await makeImage('png', 50, 40, 74);
  const fresh = await makeImage('jpeg', 30, 30, 75);
  const messages = [
    { role: 'user', content: [{ type: 'file', mediaType: 'image', data: { type: 'data', data: new Uint8Array(old) } }, { type: 'text', text: 'what is it?' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'a chart' }] },
    { role: 'user', content: [{ type: 'file', mediaType: 'image/jpeg', data: { type: 'data', data: fresh.toString('base64') } }, { type: 'text', text: 'and this?' }] },
  ];
  const stash = await Stash.open({ backend: 'memory' });
  const { messages: compacted } = await compactContext(messages, { stash });
  const model = mockModel();
  await generateText({ model, messages: compacted });
  const prompt = model.doGenerateCalls[0].prompt;
  assert.equal(prompt[0].content[0].type, 'text');
  assert.equal(prompt[0].content[0].text, `[Picture:history_${md5(old.toString('base64'))}]`);
  assert.deepEqual(bytesOf(prompt[2].content[0].data), fresh, 'the newest image reaches the model intact');

  const { messages: expanded } = await expandContext(compacted, { stash });
  await generateText({ model, messages: expanded });
  const full = model.doGenerateCalls[1].prompt;
  assert.equal(full[0].content[0].type, 'file');
  assert.deepEqual(bytesOf(full[0].content[0].data), old);
});

test('AI SDK 7 tool outputs: file, image-data and file-data content is compacted and restored', async () => {
  const shot = (await makeImage('png', 60, 40, 76)).toString('base64');
  const legacy = (await makeImage('jpeg', 30, 20, 77)).toString('base64');
  const output = {
    type: 'content',
    value: [
      { type: 'text', text: 'screenshot taken' },
      { type: 'file', mediaType: 'image/png', data: { type: 'data', data: shot } },
      { type: 'image-data', data: legacy, mediaType: 'image/jpeg' },
    ],
  };
  const messages = [
    { role: 'user', content: [{ type: 'text', text: 'take a screenshot' }] },
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 't1', toolName: 'screenshot', input: {} }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 't1', toolName: 'screenshot', output }] },
    { role: 'assistant', content: [{ type: 'text', text: 'done' }] },
    { role: 'user', content: [{ type: 'text', text: 'thanks' }] },
  ];
  const stash = await Stash.open({ backend: 'memory' });
  const { messages: compacted, report } = await compactContext(messages, { stash });
  assert.equal(report.stashed, 2);
  assert.ok(!JSON.stringify(compacted).includes(shot.slice(0, 100)));
  const model = mockModel();
  await generateText({ model, messages: compacted });
  const { messages: expanded } = await expandContext(compacted, { stash });
  assert.deepEqual(expanded, messages);
});

test('an Anthropic conversation that looks like OpenAI once compacted expands as Anthropic, breakpoints kept', async () => {
  const png = (await makeImage('png', 40, 30, 78)).toString('base64');
  const messages = [
    { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: png }, cache_control: { type: 'ephemeral' } }, { type: 'text', text: 'what is it?' }] },
    { role: 'assistant', content: 'a chart' },
    { role: 'user', content: 'the title?' },
  ];
  const stash = await Stash.open({ backend: 'memory' });
  const { messages: compacted } = await compactContext(messages, { stash });
  assert.deepEqual(compacted[0].content[0], { type: 'text', text: `[Picture:history_${md5(png)}]`, cache_control: { type: 'ephemeral' } });
  const { messages: expanded, report } = await expandContext(compacted, { stash });
  assert.equal(report.format, 'openai', 'detected from what is left');
  assert.deepEqual(expanded, messages);
});

test('one image sent twice comes back twice in its own shapes, turn by turn', async () => {
  const url = `data:image/png;base64,${(await makeImage('png', 40, 30, 79)).toString('base64')}`;
  const high = { role: 'user', content: [{ type: 'image_url', image_url: { url, detail: 'high' } }] };
  const plain = { role: 'user', content: [{ type: 'image_url', image_url: { url } }] };
  const stash = await Stash.open({ backend: 'memory' });
  let history = (await compactContext([high, { role: 'assistant', content: 'one' }, plain], { stash })).messages;
  history = [...history, { role: 'assistant', content: 'two' }, { role: 'user', content: 'compare' }];
  const { messages: compacted } = await compactContext(history, { stash });
  const { messages: expanded } = await expandContext(compacted, { stash });
  assert.deepEqual(expanded, [high, { role: 'assistant', content: 'one' }, plain, { role: 'assistant', content: 'two' }, { role: 'user', content: 'compare' }]);
});

test('LangChain JS standard image blocks are compacted; url and fileId blocks are left', async () => {
  const png = (await makeImage('png', 40, 30, 80)).toString('base64');
  const messages = [
    { role: 'user', content: [{ type: 'image', data: png, mimeType: 'image/png' }, { type: 'image', url: 'https://example.com/a.png' }, { type: 'image', fileId: 'file-1' }] },
    { role: 'assistant', content: 'three' },
    { role: 'user', content: 'the first?' },
  ];
  const stash = await Stash.open({ backend: 'memory' });
  const { messages: compacted, report } = await compactContext(messages, { stash });
  assert.equal(report.format, 'langchain');
  assert.equal(report.stashed, 1);
  assert.deepEqual(compacted[0].content.slice(1), messages[0].content.slice(1));
  assert.deepEqual((await expandContext(compacted, { stash })).messages, messages);
});

test('sanitizeToolResult keeps an MCP CallToolResult valid: image and audio blocks become text blocks, a blob becomes text', async () => {
  const { CallToolResultSchema } = await import('@modelcontextprotocol/sdk/types.js');
  const { sanitizeToolResult } = await import('ctxpack');
  const png = (await makeImage('png', 160, 120, 82)).toString('base64');
  assert.ok(png.length > 10 * 1024);
  const result = {
    content: [
      { type: 'text', text: 'Screenshot taken' },
      { type: 'image', data: png, mimeType: 'image/png', annotations: { audience: ['assistant'] } },
      { type: 'resource', resource: { uri: 'file:///tmp/shot.png', mimeType: 'image/png', blob: png } },
    ],
    isError: false,
  };
  CallToolResultSchema.parse(result);
  const stash = await Stash.open({ backend: 'memory' });
  for (const options of [{ stash }, {}]) {
    const clean = await sanitizeToolResult(result, options);
    const parsed = CallToolResultSchema.parse(clean);
    assert.ok(!JSON.stringify(parsed).includes(png.slice(0, 200)));
    assert.equal(clean.content[1].type, 'text');
    assert.match(clean.content[1].text, options.stash ? /^\[Binary:history_[0-9a-f]{32} image\/png / : /^\[BINARY_DATA_FILTERED: /);
    assert.deepEqual(clean.content[1].annotations, { audience: ['assistant'] });
    assert.equal(clean.content[2].resource.uri, 'file:///tmp/shot.png');
    assert.equal(clean.content[2].resource.blob, undefined);
    assert.match(clean.content[2].resource.text, /^\[(Binary|BINARY)/);
  }
});
