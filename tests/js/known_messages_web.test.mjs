// compactContext and estimate remember message objects in a page too, over
// real IndexedDB: the web glue is served with a counter of every string it
// copies into wasm memory (`passStringToWasm0`, the generic copy) beside
// the engine's `encodeInto` copies, and of every array of bytes it copies
// in, so a message read again cannot hide. And a request body crosses into
// wasm once, and the next only from where it differs.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { serve } from '../../scripts/serve.mjs';
import { launch } from './support/browser.mjs';
import { makeImage } from '../fixtures/make.mjs';

let server;
let browser;
let page;

const HEAD = 'function passStringToWasm0(arg, malloc, realloc) {';
const BYTES = 'Uint8Array.prototype.set.call(getArrayU8FromWasm0(arg0, arg1), arg2);';

before(async () => {
  server = await serve();
  browser = await launch();
  page = await browser.newPage();
  // Both modules' glue: the main module's, and the full module's, where
  // compactRequestBody runs (the only one that copies bytes in).
  for (const [glue, copiesBytes] of [['**/dist/web/ctxpack.js', false], ['**/dist/web/full/ctxpack_full.js', true]]) {
    await page.route(glue, async (route) => {
      const response = await route.fetch();
      const source = await response.text();
      assert.ok(source.includes(HEAD), `${glue} copies strings with passStringToWasm0`);
      if (copiesBytes) assert.ok(source.includes(BYTES), `${glue} copies bytes in with Uint8Array.prototype.set`);
      const body = source
        .replace(HEAD, `${HEAD}\n    globalThis.__ctxpackCopied = (globalThis.__ctxpackCopied ?? 0) + arg.length;`)
        .replace(BYTES, `globalThis.__ctxpackCopied = (globalThis.__ctxpackCopied ?? 0) + arg2.length;\n            ${BYTES}`);
      await route.fulfill({ response, body });
    });
  }
  await page.goto(`${server.url}/tests/js/support/blank.html`);
  await page.evaluate(async () => {
    const realEncodeInto = TextEncoder.prototype.encodeInto;
    TextEncoder.prototype.encodeInto = function (text, into) {
      const done = realEncodeInto.call(this, text, into);
      if (!new Error().stack.includes('passStringToWasm0')) globalThis.__ctxpackCopied = (globalThis.__ctxpackCopied ?? 0) + done.read;
      return done;
    };
    const mod = await import('/dist/web/index.js');
    await mod.default();
    window.ctxpack = mod;
    window.copiedBy = async (fn) => {
      const before = globalThis.__ctxpackCopied ?? 0;
      const value = await fn();
      return { value, copied: (globalThis.__ctxpackCopied ?? 0) - before };
    };
  });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('in a page, a chat sent again copies into wasm only its new messages, for compactContext and estimate; a body crosses once', async () => {
  const shots = await Promise.all([0, 1, 2].map(async (i) => (await makeImage('png', 64, 48, 900 + i)).toString('base64')));
  const res = await page.evaluate(async ({ shots, dbName }) => {
    const { Stash, compactContext, compactRequestBody, estimate } = window.ctxpack;
    const stash = await Stash.open({ name: dbName });
    const { messages: stashed } = await compactContext([...shots.map((b) => ({ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${b}` } }] })), { role: 'user', content: 'ok' }], { stash });
    const placeholders = stashed.slice(0, 3).map((m) => m.content[0].text);
    const chat = [{ role: 'system', content: 'You are an agent.' }];
    for (let i = 0; i < 60; i++) {
      chat.push({ role: 'user', content: [{ type: 'text', text: `task ${i}` }, ...(i % 3 ? [] : [{ type: 'text', text: placeholders[i % 3] }])] });
      chat.push({ role: 'assistant', content: null, tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'read', arguments: `{"i":${i}}` } }] });
      chat.push({ role: 'tool', tool_call_id: `c${i}`, content: JSON.stringify({ ok: true, text: 'fn main() {}\n'.repeat(3) }) });
    }
    chat.push({ role: 'user', content: 'and now?' });
    const size = JSON.stringify(chat).length;
    const sends = [];
    for (let n = 0; n < 2; n++) sends.push((await window.copiedBy(() => compactContext(chat, { stash }))).copied);
    const added = [{ role: 'assistant', content: 'Done.' }, { role: 'user', content: 'Now the tests.' }];
    const next = [...chat.slice(0, -1), ...added];
    const third = await window.copiedBy(() => compactContext(next, { stash }));
    const fresh = await compactContext(structuredClone(next), { stash });
    const estimated = await window.copiedBy(async () => estimate(next, { model: 'gpt-4o', stash }));
    const body = JSON.stringify({ model: 'm', messages: next });
    // The full module loaded, and its stash over the same database opened
    // (once per stash), before counting.
    await compactRequestBody('[]', { stash });
    const asText = await window.copiedBy(() => compactRequestBody(body, { stash }));
    const after = JSON.stringify({ model: 'm', messages: [...next, { role: 'assistant', content: 'Tested.' }] });
    const again = await window.copiedBy(() => compactRequestBody(after, { stash }));
    stash.close();
    return {
      size, sends, added: JSON.stringify(added).length,
      third: third.copied, sameReport: JSON.stringify(third.value.report) === JSON.stringify(fresh.report),
      own: third.value.messages.slice(0, 150).every((m, i) => m === next[i]),
      estimated: estimated.copied,
      sameEstimate: JSON.stringify(estimated.value) === JSON.stringify(estimate(structuredClone(next), { model: 'gpt-4o' })),
      body: body.length, asText: asText.copied, sameBody: asText.value.body === body,
      newBytes: after.length - body.length, again: again.copied, sameAgain: again.value.body === after,
    };
  }, { shots, dbName: `known-${Math.random().toString(36).slice(2)}` });
  // The first two sends read every message.
  for (const copied of res.sends) assert.ok(copied >= res.size / 2, `read: ${copied} of ${res.size}`);
  // The third: the two new messages, their keys and the options' strings.
  assert.ok(res.third <= res.added + 64, `sent again, copied ${res.third}`);
  assert.ok(res.sameReport && res.own);
  assert.ok(res.estimated <= res.added + 64, `estimate copied ${res.estimated}`);
  assert.ok(res.sameEstimate);
  assert.ok(res.asText <= res.body + 64 && res.asText >= res.body, `the body crossed once: ${res.asText} of ${res.body}`);
  assert.ok(res.sameBody, 'nothing to change: the same string');
  // The next body: only the bytes after those it shares with the one before.
  assert.ok(res.again <= res.newBytes + 8, `the next body crossed from where it differs: ${res.again} for ${res.newBytes} new`);
  assert.ok(res.sameAgain);
});
