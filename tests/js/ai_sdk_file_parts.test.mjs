// AI SDK 7 deprecates the `{type:'image'}` part for a `file` part with an
// image media type: the parts ctxpack writes for `format: 'ai-sdk'`
// (toMultimodal, getHistoryImage, answerHistoryImageCall) are file parts,
// which the SDK's own `modelMessageSchema` accepts and `tsc --strict` types
// as `ModelMessage`; both part kinds are still read.
import test from 'node:test';
import assert from 'node:assert/strict';
import { modelMessageSchema } from 'ai';
import { Stash, answerHistoryImageCall, compactContext, expandContext, getHistoryImage, toMultimodal } from 'ctxpack';
import { IMAGES } from './support/wire.mjs';
import { assertTypeChecks } from './support/typecheck.mjs';

const { chart, photo } = IMAGES;

/** Every part of `messages` (a tool result's content output's too). */
function parts(messages) {
  return messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []))
    .flatMap((p) => (p.type === 'tool-result' && p.output?.type === 'content' ? [p, ...p.output.value] : [p]));
}

test('toMultimodal, getHistoryImage and answerHistoryImageCall write AI SDK 7 file parts that the SDK accepts', async () => {
  const { content } = await toMultimodal(`这是什么？![图表](${chart.dataUrl})`, { format: 'ai-sdk' });
  assert.deepEqual(content[1], { type: 'file', mediaType: chart.mime, data: chart.b64 });

  const stash = await Stash.open({ backend: 'memory' });
  const history = [
    { role: 'user', content },
    { role: 'assistant', content: [{ type: 'text', text: '一张图表' }] },
    { role: 'user', content: [{ type: 'image', image: photo.b64, mediaType: photo.mime }, { type: 'text', text: '和这张比呢？' }] },
  ];
  const { messages: compacted, report } = await compactContext(history, { stash });
  assert.equal(report.stashed, 1);
  const { messages: expanded } = await expandContext(compacted, { stash });
  assert.deepEqual(expanded, history, 'both part kinds are read and restored as they were');

  const fetched = await getHistoryImage(stash, `history_${chart.id}`, { format: 'ai-sdk' });
  assert.deepEqual(fetched.at(-1), { type: 'file', mediaType: chart.mime, data: chart.b64 });
  const call = { type: 'tool-call', toolCallId: 'call_1', toolName: 'get_history_image', input: { image_md5: chart.id } };
  const answers = [
    ...await answerHistoryImageCall(stash, call, { format: 'ai-sdk' }),
    ...await answerHistoryImageCall(stash, call, { format: 'ai-sdk', provider: 'anthropic.messages' }),
  ];
  const written = [{ role: 'user', content: [...content, ...fetched] }, { role: 'assistant', content: [call] }, ...answers];
  assert.ok(!parts(written).some((p) => p.type === 'image'), 'no deprecated image part is written');
  assert.ok(parts(written).filter((p) => p.type === 'file').length >= 4);
  for (const m of written) modelMessageSchema.parse(m);

  const short = (v) => JSON.stringify(v, (k, x) => (typeof x === 'string' && x.length > 200 ? x.slice(0, 16) : x), 1);
  assertTypeChecks(`import type { ModelMessage } from 'ai';\nexport const written: ModelMessage[] = ${short(written)};\n`, 'ai-sdk-files-');
});
