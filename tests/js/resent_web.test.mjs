// A history sent again in a page, over real IndexedDB: each turn writes only
// its new image, and a record another connection deleted behind the stash's
// listing is written again before its image is replaced.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { serve } from '../../scripts/serve.mjs';
import { launch } from './support/browser.mjs';
import { makeImage } from '../fixtures/make.mjs';

let server;
let browser;
let page;

before(async () => {
  server = await serve();
  browser = await launch();
  page = await browser.newPage();
  await page.goto(`${server.url}/tests/js/support/blank.html`);
  await page.evaluate(async () => {
    const mod = await import('/dist/web/index.js');
    await mod.default();
    window.ctxpack = mod;
    // Another connection (another tab) deletes a record's image.
    window.deleteElsewhere = (dbName, id) => new Promise((resolve, reject) => {
      const req = indexedDB.open(dbName);
      req.onsuccess = () => {
        const db = req.result;
        const tx = db.transaction(['images'], 'readwrite');
        tx.objectStore('images').delete(id);
        tx.oncomplete = () => { db.close(); resolve(); };
        tx.onerror = () => reject(tx.error);
      };
      req.onerror = () => reject(req.error);
    });
  });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

const md5 = (s) => createHash('md5').update(s).digest('hex');
const ids = (messages) => [...JSON.stringify(messages).matchAll(/\[Picture:history_([0-9a-f]{32})\]/g)].map((m) => m[1]);

test('each turn of a re-sent history writes only its new image; a record deleted behind the listing is written again', async () => {
  const b64 = (await Promise.all([makeImage('png', 120, 90, 401), makeImage('jpeg', 120, 90, 402), makeImage('png', 120, 90, 403)])).map((b) => b.toString('base64'));
  const dbName = `resent-${Math.random().toString(36).slice(2)}`;
  const firstId = md5(b64[0]);
  const res = await page.evaluate(async ({ b64, dbName, firstId }) => {
    const { Stash, compactContext, getHistoryImage } = window.ctxpack;
    const user = (data, mime) => ({ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:${mime};base64,${data}` } }, { type: 'text', text: 'look' }] });
    const history = [user(b64[0], 'image/png'), { role: 'assistant', content: 'ok' }, user(b64[1], 'image/jpeg'), { role: 'user', content: 'what changed?' }];
    const stash = await Stash.open({ name: dbName });
    const first = await compactContext(history, { stash });
    const next = [...history.slice(0, -1), user(b64[2], 'image/png'), { role: 'assistant', content: 'seen' }, { role: 'user', content: 'and now?' }];
    const second = await compactContext(next, { stash });
    // Another connection (another tab) deletes the first image's record;
    // this stash's listing, read moments ago, still names it.
    await window.deleteElsewhere(dbName, firstId);
    const third = await compactContext(next, { stash });
    const answer = await getHistoryImage(stash, `history_${firstId}`);
    stash.close();
    return { first: first.report, second: second.report, third: third.report, secondMessages: second.messages, thirdMessages: third.messages, answer };
  }, { b64, dbName, firstId });
  assert.deepEqual([res.first.stashed, res.first.written], [2, 2]);
  assert.deepEqual([res.second.stashed, res.second.written], [3, 1]);
  assert.deepEqual(ids(res.secondMessages), [md5(b64[0]), md5(b64[1]), md5(b64[2])]);
  // The deleted record is written again; the others are only confirmed.
  assert.deepEqual([res.third.stashed, res.third.written, res.third.failed], [3, 1, 0]);
  assert.deepEqual(res.thirdMessages, res.secondMessages);
  assert.equal(res.answer[0].type, 'image_url');
  assert.equal(res.answer[0].image_url.url, `data:image/png;base64,${b64[0]}`);
});

test('a tool result\'s JSON text sent again uses what its first send made while IndexedDB holds the record; one deleted behind the listing is written again', async () => {
  const b64 = (await makeImage('png', 120, 90, 405)).toString('base64');
  const dbName = `resent-tool-${Math.random().toString(36).slice(2)}`;
  const id = md5(b64);
  const res = await page.evaluate(async ({ b64, dbName, id }) => {
    const { Stash, compactContext, getHistoryImage } = window.ctxpack;
    const text = JSON.stringify({ success: true, caption: 'the "settings" page', imageBase64: b64 });
    const history = [
      { role: 'user', content: 'take a screenshot' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'screenshot', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: text },
      { role: 'user', content: 'and now?' },
    ];
    const stash = await Stash.open({ name: dbName });
    const options = { stash, sanitizeToolResults: true };
    const first = await compactContext(history, options);
    const second = await compactContext(history, options);
    const records = (await stash.list()).length;
    await window.deleteElsewhere(dbName, id);
    const third = await compactContext(history, options);
    const answer = await getHistoryImage(stash, `history_${id}`);
    stash.close();
    return { first, second, third, records, answer };
  }, { b64, dbName, id });
  assert.match(JSON.parse(res.first.messages[2].content).imageBase64, new RegExp(`^\\[Binary:history_${id} image/png `));
  assert.deepEqual(res.second.messages, res.first.messages);
  assert.deepEqual(res.second.report, res.first.report);
  assert.equal(res.records, 1);
  assert.deepEqual(res.third.messages, res.first.messages);
  assert.deepEqual(res.third.report, res.first.report);
  assert.equal(res.answer[0].image_url.url, `data:image/png;base64,${b64}`);
});

test('a payload of many megabytes is hashed a piece at a time, the page running between pieces, under the id of its whole text, and read so again by expandContext, toMultimodal and sanitizeToolResult (of an object or of the text itself) and compactContext with sanitizeToolResults', async () => {
  // 24 MB of base64: reading and hashing it takes well over two 10 ms slices.
  const big = 'iVBORw0K' + 'QUJD'.repeat(6 * 1024 * 1024 - 2);
  const small = (await makeImage('png', 40, 30, 404)).toString('base64');
  const dbName = `big-${Math.random().toString(36).slice(2)}`;
  const res = await page.evaluate(async ({ small, dbName, repeat }) => {
    const { Stash, compactContext, expandContext, toMultimodal, sanitizeToolResult } = window.ctxpack;
    const big = 'iVBORw0K' + 'QUJD'.repeat(repeat);
    // The library's clock is moved by hand, 3 ms a reading, so the pauses
    // counted below depend on how often it looks at the clock, never on the
    // machine's speed.
    const realDateNow = Date.now;
    let clock = realDateNow();
    Date.now = () => (clock += 3);
    // Every pause the library makes goes through scheduler.yield (wrapped
    // here to count them); onProgress marks the big image's turn.
    const original = globalThis.scheduler?.yield?.bind(globalThis.scheduler);
    let hashingBig = false;
    let pausesInBig = 0;
    let pauses = 0;
    globalThis.scheduler = {
      ...globalThis.scheduler,
      yield: () => {
        pauses++;
        if (hashingBig) pausesInBig++;
        return original ? original() : new Promise((r) => setTimeout(r, 0));
      },
    };
    const user = (data) => ({ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${data}` } }, { type: 'text', text: 'look' }] });
    const history = [user(small), { role: 'assistant', content: 'ok' }, user(big), { role: 'assistant', content: 'ok' }, { role: 'user', content: 'and now?' }];
    const stash = await Stash.open({ name: dbName });
    /** The pauses `run` makes. */
    const pausesOf = async (run) => {
      const before = pauses;
      const value = await run();
      return { value, pauses: pauses - before };
    };
    try {
      const { messages, report } = await compactContext(history, {
        stash,
        onProgress: ({ done }) => { hashingBig = done === 1; },
      });
      // Putting the original back checks its MD5; toMultimodal reads it
      // from a data URL in markdown.
      const expanded = await pausesOf(() => expandContext(messages, { stash }));
      const multimodal = await pausesOf(() => toMultimodal(`see ![shot](data:image/png;base64,${big})`));
      // A screenshot tool's result: text no earlier call has seen.
      const shot = 'iVBORw0K' + 'QUJD'.repeat(repeat - 1) + 'QUJF';
      const sanitized = await pausesOf(() => sanitizeToolResult({ content: [{ type: 'image', data: shot, mimeType: 'image/png' }] }, { stash }));
      // A tool whose result is the base64 text itself.
      const bare = await pausesOf(() => sanitizeToolResult('iVBORw0K' + 'QUJD'.repeat(repeat - 1) + 'QUJG', { stash }));
      // The same kind of result in a history, sanitized by compactContext.
      const toolText = 'iVBORw0K' + 'QUJD'.repeat(repeat - 1) + 'QUJH';
      const withTool = [
        { role: 'user', content: 'take a screenshot' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'screenshot', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: toolText },
        { role: 'user', content: 'and now?' },
      ];
      const inHistory = await pausesOf(() => compactContext(withTool, { stash, sanitizeToolResults: true }));
      return {
        text: JSON.stringify(messages),
        stashed: report.stashed,
        pausesInBig,
        restored: expanded.value.messages[2].content[0].image_url.url === `data:image/png;base64,${big}`,
        expandPauses: expanded.pauses,
        multimodalImage: multimodal.value.content.find((p) => p.type === 'image_url')?.image_url.url === `data:image/png;base64,${big}`,
        multimodalPauses: multimodal.pauses,
        sanitized: JSON.stringify(sanitized.value),
        sanitizePauses: sanitized.pauses,
        bare: bare.value,
        barePauses: bare.pauses,
        inHistory: inHistory.value.messages[2].content,
        inHistoryPauses: inHistory.pauses,
      };
    } finally {
      stash.close();
      if (original) globalThis.scheduler.yield = original;
      Date.now = realDateNow;
    }
  }, { small, dbName, repeat: 6 * 1024 * 1024 - 2 });
  assert.equal(res.stashed, 2);
  assert.ok(res.text.includes(`[Picture:history_${md5(big)}]`), 'the id is the MD5 of the whole text');
  assert.ok(res.text.includes(`[Picture:history_${md5(small)}]`));
  assert.ok(res.pausesInBig >= 2, `${res.pausesInBig} pauses while the big image was read`);
  assert.ok(res.restored, 'expandContext puts the original back');
  assert.ok(res.multimodalImage, 'toMultimodal makes the data URL an image part');
  // Read whole, expandContext paused 0 times here and toMultimodal once.
  assert.ok(res.expandPauses >= 3, `expandContext paused ${res.expandPauses} times`);
  assert.ok(res.multimodalPauses >= 3, `toMultimodal paused ${res.multimodalPauses} times`);
  // Read whole, sanitizeToolResult paused once (after the payload).
  const shot = 'iVBORw0K' + 'QUJD'.repeat(6 * 1024 * 1024 - 3) + 'QUJF';
  assert.ok(res.sanitized.includes(`[Binary:history_${md5(shot)} `), res.sanitized);
  assert.ok(res.sanitizePauses >= 3, `sanitizeToolResult paused ${res.sanitizePauses} times`);
  // Copied in as text, it was hashed in one task: it paused once.
  const bare = 'iVBORw0K' + 'QUJD'.repeat(6 * 1024 * 1024 - 3) + 'QUJG';
  assert.equal(typeof res.bare, 'string');
  assert.ok(res.bare.startsWith(`[Binary:history_${md5(bare)} `), res.bare);
  assert.ok(res.barePauses >= 3, `sanitizeToolResult of a text paused ${res.barePauses} times`);
  // Before, the tool message was copied in as text and hashed in one task.
  const toolText = 'iVBORw0K' + 'QUJD'.repeat(6 * 1024 * 1024 - 3) + 'QUJH';
  assert.ok(res.inHistory.startsWith(`[Binary:history_${md5(toolText)} `), res.inHistory);
  assert.ok(res.inHistoryPauses >= 3, `compactContext sanitizing a tool message paused ${res.inHistoryPauses} times`);
});
