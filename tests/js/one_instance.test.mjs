// One wasm instance per Node process, whichever way the package is loaded:
// `require('ctxpack')` (as a CommonJS app such as a VSCode desktop extension
// loads it), `import('ctxpack')` and the adapters `ctxpack/ai-sdk` and
// `ctxpack/langchain` (ES modules over `ctxpack`) all reach the one CommonJS
// build, so a `Stash` opened through one works with every other. A `Stash` of
// a genuinely separate copy of ctxpack (a second installed copy, with its own
// instance) is refused with an error that says so, and never taken for one of
// this copy's stashes.
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { generateText, stepCountIs, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { createAgent } from 'langchain';
import { fakeModel } from '@langchain/core/testing';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { ROOT } from '../../scripts/serve.mjs';
import { makeImage } from '../fixtures/make.mjs';

// The package as a CommonJS app requires it, by name.
const require = createRequire(import.meta.url);
const cjs = require('ctxpack');
const { fileStash } = require('ctxpack/node');

const dir = mkdtempSync(path.join(os.tmpdir(), 'ctxpack-one-instance-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const md5 = (s) => createHash('md5').update(s).digest('hex');
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

/** The base64 of an AI SDK prompt file part's data. */
function base64Of(data) {
  if (data?.type === 'data') return base64Of(data.data);
  return typeof data === 'string' ? data : Buffer.from(data).toString('base64');
}

/** A history image and the newest one, as base64. */
async function images() {
  return {
    old: (await makeImage('png', 64, 48, 120)).toString('base64'),
    fresh: (await makeImage('jpeg', 40, 30, 121)).toString('base64'),
  };
}

/** A stash opened through `require`, on the file system as an extension keeps it. */
function openCommonJsStash(name) {
  return cjs.Stash.open({ backend: fileStash(path.join(dir, name)) });
}

/** The AI SDK conversation: an older image, a reply, a new image. */
function aiSdkMessages({ old, fresh }) {
  return [
    { role: 'user', content: [{ type: 'file', mediaType: 'image/png', data: { type: 'data', data: old } }, { type: 'text', text: 'what is this chart?' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'sales by month' }] },
    { role: 'user', content: [{ type: 'image', image: fresh, mediaType: 'image/jpeg' }, { type: 'text', text: 'compare with the first chart' }] },
  ];
}

/** A mock model answering each call with the next of `replies` (content arrays). */
function scriptedModel(replies) {
  let n = 0;
  return new MockLanguageModelV4({
    provider: 'mock-provider',
    doGenerate: async () => ({
      content: replies[Math.min(n++, replies.length - 1)],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage,
      warnings: [],
    }),
  });
}

test('require and import reach one instance: the same Stash class and functions, and a stash of one works with the other', async () => {
  const esm = await import('ctxpack');
  assert.equal(require.resolve('ctxpack'), path.join(ROOT, 'dist/node/index.js'));
  assert.equal(cjs.Stash, esm.Stash);
  assert.equal(cjs.compactContext, esm.compactContext);
  assert.equal(cjs.CtxpackError, esm.CtxpackError);
  assert.equal(esm.default, cjs, "import's default export is the CommonJS module");
  const { old, fresh } = await images();
  const messages = [
    { role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${old}` } }] },
    { role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/jpeg;base64,${fresh}` } }] },
  ];
  const required = await openCommonJsStash('across-entries');
  const { messages: compacted, report } = await esm.compactContext(messages, { stash: required });
  assert.equal(report.stashed, 1);
  const imported = await esm.Stash.open({ backend: fileStash(path.join(dir, 'across-entries')) });
  const { messages: restored } = await cjs.expandContext(compacted, { stash: imported });
  assert.deepEqual(restored, messages);
});

test('ctxpack/ai-sdk with a stash opened through require: the middleware stashes the history image and the tool reads it back', async () => {
  const aiSdk = await import('ctxpack/ai-sdk');
  const { old, fresh } = await images();
  const stash = await openCommonJsStash('ai-sdk');
  const reports = [];
  const inner = scriptedModel([
    [{ type: 'tool-call', toolCallId: 'call-1', toolName: aiSdk.HISTORY_IMAGE_TOOL, input: JSON.stringify({ image_md5: `history_${md5(old)}` }) }],
    [{ type: 'text', text: 'the first chart is higher' }],
  ]);
  const result = await generateText({
    model: wrapLanguageModel({ model: inner, middleware: aiSdk.ctxpackMiddleware({ stash, onReport: (r) => reports.push(r) }) }),
    messages: aiSdkMessages({ old, fresh }),
    tools: { [aiSdk.HISTORY_IMAGE_TOOL]: aiSdk.historyImageTool({ stash }) },
    stopWhen: stepCountIs(3),
  });
  assert.equal(result.text, 'the first chart is higher');
  const [first, second] = inner.doGenerateCalls.map((c) => c.prompt);
  // Stashed: the model first saw a placeholder, and the stash holds the image.
  assert.equal(reports[0].stashed, 1);
  assert.equal(first[0].content[0].text, `[Picture:history_${md5(old)}]`);
  assert.ok(!JSON.stringify(first).includes(old.slice(0, 100)));
  assert.deepEqual((await stash.list()).map((e) => e.id), [md5(old)]);
  assert.ok(readdirSync(path.join(dir, 'ai-sdk')).includes(`${md5(old)}.json`), 'the record is a file of the stash');
  // Read back: the tool's answer brought the original to the model.
  const at = second.findIndex((m) => m.role === 'tool');
  const file = second[at + 1].content.find((p) => p.type === 'file');
  assert.equal(base64Of(file.data), old);
});

test('ctxpack/langchain with a stash opened through require: the agent middleware stashes the history image and the tool reads it back', async () => {
  const lc = await import('ctxpack/langchain');
  const { old, fresh } = await images();
  const stash = await openCommonJsStash('langchain');
  const model = fakeModel()
    .respondWithTools([{ name: 'get_history_image', args: { image_md5: md5(old) }, id: 'tc-1' }])
    .respond(new AIMessage('the first chart is higher'));
  const agent = createAgent({ model, tools: [lc.historyImageTool({ stash })], middleware: [lc.ctxpackMiddleware({ stash })] });
  const result = await agent.invoke({
    messages: [
      new HumanMessage({ content: [{ type: 'image', mimeType: 'image/png', data: old }, { type: 'text', text: 'what is this chart?' }] }),
      new AIMessage('sales by month'),
      new HumanMessage({ content: [{ type: 'image', mimeType: 'image/jpeg', data: fresh }, { type: 'text', text: 'compare with the first chart' }] }),
    ],
  });
  assert.equal(result.messages.at(-1).content, 'the first chart is higher');
  const [first, second] = model.calls.map((c) => c.messages);
  assert.deepEqual(first[0].content[0], { type: 'text', text: `[Picture:history_${md5(old)}]` });
  assert.deepEqual((await stash.list()).map((e) => e.id), [md5(old)]);
  const at = second.findIndex((m) => m instanceof ToolMessage);
  const image = second[at + 1].content.find((b) => b.type === 'image_url');
  assert.deepEqual(image, { type: 'image_url', image_url: { url: `data:image/png;base64,${old}` } });
});

test('a stash of a separate copy of ctxpack is refused as another copy\'s, both ways, and never taken for one of this copy\'s', async () => {
  // A second installed copy of the package, in a project of its own.
  const other = path.join(dir, 'other-app');
  const copy = path.join(other, 'node_modules/ctxpack');
  mkdirSync(copy, { recursive: true });
  cpSync(path.join(ROOT, 'package.json'), path.join(copy, 'package.json'));
  cpSync(path.join(ROOT, 'dist'), path.join(copy, 'dist'), { recursive: true });
  writeFileSync(path.join(other, 'package.json'), JSON.stringify({ name: 'other-app', private: true }));
  const second = createRequire(path.join(other, 'index.js'))('ctxpack');
  assert.notEqual(second.Stash, cjs.Stash, 'a separate copy');

  // Each copy has a stash open, as the first of each (the same handle, were
  // handles counted per copy).
  const ours = await openCommonJsStash('ours');
  const theirs = await second.Stash.open({ backend: 'memory' });
  const { old, fresh } = await images();
  const messages = [
    { role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${old}` } }] },
    { role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/jpeg;base64,${fresh}` } }] },
  ];
  const anotherCopy = (CtxpackError, at) => (e) => {
    assert.ok(e instanceof CtxpackError, String(e));
    assert.equal(e.code, 'STASH_UNAVAILABLE');
    assert.equal(e.path, at);
    assert.match(e.message, /belongs to another copy of ctxpack/);
    assert.doesNotMatch(e.message, /closed/);
    return true;
  };
  await assert.rejects(cjs.compactContext(messages, { stash: theirs }), anotherCopy(cjs.CtxpackError, 'options.stash'));
  await assert.rejects(second.compactContext(messages, { stash: ours }), anotherCopy(second.CtxpackError, 'options.stash'));
  await assert.rejects(cjs.getHistoryImage(theirs, md5(old)), anotherCopy(cjs.CtxpackError, 'stash'));
  // The adapters of this copy refuse it the same way.
  const aiSdk = await import('ctxpack/ai-sdk');
  const middleware = aiSdk.ctxpackMiddleware({ stash: theirs });
  await assert.rejects(middleware.transformParams({ params: { prompt: aiSdkMessages({ old, fresh }) }, model: {} }), anotherCopy(cjs.CtxpackError, 'options.stash'));
  // Nothing went into either stash.
  assert.deepEqual(await ours.list(), []);
  assert.deepEqual(await theirs.list(), []);
  // Each copy still works with its own, and a closed stash says it was closed.
  assert.equal((await second.compactContext(messages, { stash: theirs })).report.stashed, 1);
  theirs.close();
  await assert.rejects(second.compactContext(messages, { stash: theirs }), (e) => e.code === 'STASH_UNAVAILABLE' && /this stash was closed/.test(e.message));
});
