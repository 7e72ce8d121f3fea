// The whole loop in a browser, no network: a Chromium page runs the AI SDK's
// Chat with its HTTP transport (tests/loop/chat-page.mjs, bundled by Vite)
// against a local Node route that runs streamText on a mock model; the page
// says when each turn is over, so nothing waits on a timer. Three
// turns with images; the route must never receive an older image inline; on
// turn four the model calls get_history_image, the page answers from
// IndexedDB, and the model's next prompt holds the original image bytes.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, mkdirSync, rmSync, symlinkSync, copyFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build as viteBuild } from 'vite';
import wasm from 'vite-plugin-wasm';
import { convertToModelMessages, simulateReadableStream, streamText, validateUIMessages } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { historyImageTool } from 'ctxpack/ai-sdk';
import { serve, ROOT } from '../../scripts/serve.mjs';
import { launch } from './support/browser.mjs';
import { makeImage } from '../fixtures/make.mjs';

const md5 = (s) => createHash('md5').update(s).digest('hex');
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

let browser;
let dir;

before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ctxpack-chat-'));
  mkdirSync(path.join(dir, 'node_modules'));
  symlinkSync(ROOT, path.join(dir, 'node_modules/ctxpack'), 'dir');
  symlinkSync(path.join(ROOT, 'node_modules/ai'), path.join(dir, 'node_modules/ai'), 'dir');
  mkdirSync(path.join(dir, 'src'));
  copyFileSync(path.join(ROOT, 'tests/loop/chat-page.mjs'), path.join(dir, 'src/entry.js'));
  await viteBuild({
    root: dir,
    logLevel: 'silent',
    configFile: false,
    plugins: [wasm()],
    build: { outDir: path.join(dir, 'out'), emptyOutDir: true, target: 'esnext', minify: false, lib: { entry: path.join(dir, 'src/entry.js'), formats: ['es'], fileName: () => 'main.js' } },
  });
  writeFileSync(path.join(dir, 'out/index.html'), '<!doctype html><meta charset="utf-8"><script type="module" src="./main.js"></script>');
  browser = await launch();
});

after(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The text the model streams, one reply per call. */
function textStream(text) {
  return [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't' },
    { type: 'text-delta', id: 't', delta: text },
    { type: 'text-end', id: 't' },
    { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
  ];
}

test('AI SDK Chat in Chromium: compacted every turn, the history image fetched back from IndexedDB', async () => {
  const images = await Promise.all([makeImage('png', 96, 64, 101), makeImage('jpeg', 80, 60, 102), makeImage('png', 64, 64, 103)]);
  const b64 = images.map((b) => b.toString('base64'));
  const urls = [`data:image/png;base64,${b64[0]}`, `data:image/jpeg;base64,${b64[1]}`, `data:image/png;base64,${b64[2]}`];

  const received = [];
  const tools = { get_history_image: historyImageTool() };
  const model = new MockLanguageModelV4({
    doStream: async () => {
      const n = model.doStreamCalls.length;
      const chunks = n === 4
        ? [
          { type: 'stream-start', warnings: [] },
          { type: 'tool-call', toolCallId: 'call-1', toolName: 'get_history_image', input: JSON.stringify({ image_md5: `history_${md5(b64[0])}` }) },
          { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
        ]
        : textStream(`reply ${n}`);
      return { stream: simulateReadableStream({ chunks }) };
    },
  });
  const route = async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const { messages } = JSON.parse(body);
    received.push(messages);
    const validated = await validateUIMessages({ messages, tools });
    const result = streamText({ model, messages: await convertToModelMessages(validated, { tools }), tools });
    result.pipeUIMessageStreamToResponse(res);
  };
  const server = await serve({ root: path.join(dir, 'out'), routes: { '/api/chat': route } });
  const page = await browser.newPage();
  try {
    await page.goto(`${server.url}/index.html`);
    await page.waitForFunction(() => window.chatReady === true, null, { timeout: 20000 });
    const turns = [
      { text: 'what is in this picture?', image: urls[0], mediaType: 'image/png' },
      { text: 'and this photo?', image: urls[1], mediaType: 'image/jpeg' },
      { text: 'one more', image: urls[2], mediaType: 'image/png' },
      { text: 'look at the first picture again: what colour is the corner?' },
      { text: 'thanks, and the second one?' },
    ];
    const result = await page.evaluate(({ t, db }) => window.runChat(t, db), { t: turns, db: `chat-${Date.now()}-${Math.random()}` });
    assert.equal(result.error, null);
    assert.equal(received.length, 6, 'five turns plus the automatic send after the tool answer');
    // The page ended each turn on its own signal (the reply that calls no
    // tool): turn four is the tool call and the automatic send after its answer.
    assert.deepEqual(result.perTurn.map((t) => t.requests), [1, 1, 1, 2, 1]);
    assert.ok(result.perTurn.every((t) => t.status === 'ready'), JSON.stringify(result.perTurn));

    // The route never receives an image older than the newest user message inline.
    for (const [i, messages] of received.entries()) {
      const newestUser = messages.findLastIndex((m) => m.role === 'user');
      const older = JSON.stringify(messages.slice(0, newestUser));
      for (const payload of b64) assert.ok(!older.includes(payload.slice(0, 120)), `request ${i + 1} carries an older image inline`);
    }
    // Turn three carries its own image inline and the older two as placeholders.
    const third = JSON.stringify(received[2]);
    assert.ok(third.includes(b64[2].slice(0, 120)));
    assert.ok(third.includes(`[Picture:history_${md5(b64[0])}]`) && third.includes(`[Picture:history_${md5(b64[1])}]`));

    // The page answered the tool call from IndexedDB.
    assert.deepEqual(result.reports, [{ answered: `history_${md5(b64[0])}`, found: true }]);
    assert.ok(result.stored.includes(md5(b64[0])));

    // On the turn after, the answered call is history: its image is not sent again.
    assert.ok(!JSON.stringify(received[5]).includes(b64[0].slice(0, 120)));
    const laterTool = model.doStreamCalls[5].prompt.find((m) => m.role === 'tool');
    assert.deepEqual(laterTool.content[0].output, { type: 'text', value: `[Picture:history_${md5(b64[0])}]` });

    // The model's prompt after the answer holds the original bytes of the first image.
    const last = model.doStreamCalls[4].prompt;
    const toolMessage = last.find((m) => m.role === 'tool');
    const file = toolMessage.content[0].output.value.find((p) => p.type === 'file');
    const data = file.data.type === 'data' ? file.data.data : file.data;
    assert.equal(typeof data === 'string' ? data : Buffer.from(data).toString('base64'), b64[0]);
    assert.equal(file.mediaType, 'image/png');
  } finally {
    await page.close();
    await server.close();
  }
});
