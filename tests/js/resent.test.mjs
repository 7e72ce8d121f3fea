// A history sent again, as apps that keep their original messages send it
// before every request: what was read before is not hashed again, and the
// ids and results are exactly those a first send gives — whatever happened
// to the strings, the part objects, the stashes in between.
import test from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { makeImage } from '../fixtures/make.mjs';

// The Node build hashes with `crypto.hash`, found on first use: count its MD5s.
const realHash = crypto.hash;
let hashes = 0;
crypto.hash = function (algorithm, ...rest) {
  if (algorithm === 'md5') hashes++;
  return realHash.call(this, algorithm, ...rest);
};
// Header reads: a payload's leading text sliced off (`slice(0, n)`, n over 1 KB).
const realSlice = String.prototype.slice;
let headReads = 0;
String.prototype.slice = function (start, end) {
  if (start === 0 && end > 1024) headReads++;
  return realSlice.call(this, start, end);
};
const { Stash, compactContext, expandContext, getHistoryImage, estimate, sanitizeToolResult } = await import('ctxpack');

const md5 = (s) => realHash('md5', s);
const b64Of = async (seed, format = 'png') => (await makeImage(format, 120, 90, seed)).toString('base64');
const openai = (b64, mime = 'image/png') => ({ role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image_url', image_url: { url: `data:${mime};base64,${b64}` } }] });
const question = { role: 'user', content: 'what changed?' };
const memory = () => Stash.open({ backend: 'memory' });

/** The sum of each message's JSON length in UTF-8: what bytesBefore and bytesAfter count. */
const jsonBytes = (messages) => messages.reduce((n, m) => n + Buffer.byteLength(JSON.stringify(m)), 0);

/** The ids of the placeholders in `messages`, in order. */
const ids = (messages) => [...JSON.stringify(messages).matchAll(/\[Picture:history_([0-9a-f]{32})\]/g)].map((m) => m[1]);

/** Counts the MD5s `fn` makes. */
async function counting(fn) {
  const before = hashes;
  const value = await fn();
  return { value, hashed: hashes - before };
}

test('a history sent again hashes only its new image, and gives the ids and messages a first send gives', async () => {
  const [a, b, c] = [await b64Of(301), await b64Of(302), await b64Of(303, 'jpeg')];
  const history = [openai(a), { role: 'assistant', content: 'ok' }, openai(b), question];
  const stash = await memory();
  const first = await counting(() => compactContext(history, { stash }));
  assert.equal(first.hashed, 2);
  assert.deepEqual(ids(first.value.messages), [md5(a), md5(b)]);
  // The same message objects, one turn more with a new image.
  const next = [...history.slice(0, -1), openai(c, 'image/jpeg'), { role: 'assistant', content: 'seen' }, question];
  const second = await counting(() => compactContext(next, { stash }));
  assert.equal(second.hashed, 1);
  assert.deepEqual(ids(second.value.messages), [md5(a), md5(b), md5(c)]);
  assert.equal(second.value.report.stashed, 3);
  assert.equal(second.value.report.written, 1);
  // What a first send of the same history into an empty stash gives.
  const fresh = await compactContext(structuredClone(next), { stash: await memory() });
  assert.deepEqual(second.value.messages, fresh.messages);
  for (const id of ids(second.value.messages)) {
    const [part] = await getHistoryImage(stash, id);
    assert.equal(md5(part.image_url.url.slice(part.image_url.url.indexOf(',') + 1)), id);
  }
});

test('a new string in the same part object gets the new payload\'s id', async () => {
  const [a, b] = [await b64Of(311), await b64Of(312)];
  const part = { type: 'image_url', image_url: { url: `data:image/png;base64,${a}` } };
  const history = [{ role: 'user', content: [part] }, question];
  const stash = await memory();
  assert.deepEqual(ids((await compactContext(history, { stash })).messages), [md5(a)]);
  part.image_url.url = `data:image/png;base64,${b}`;
  const again = await counting(() => compactContext(history, { stash }));
  assert.equal(again.hashed, 1);
  assert.deepEqual(ids(again.value.messages), [md5(b)]);
  // Changed back: the first string's id again.
  part.image_url.url = `data:image/png;base64,${a}`;
  assert.deepEqual(ids((await compactContext(history, { stash })).messages), [md5(a)]);
});

test('a payload string reused in another format gets the same id', async () => {
  const a = await b64Of(321);
  const stash = await memory();
  await compactContext([openai(a), question], { stash });
  const anthropic = [
    { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: a } }] },
    { role: 'assistant', content: 'ok' },
    { role: 'user', content: 'and?' },
  ];
  const out = await compactContext(anthropic, { stash, format: 'anthropic' });
  assert.deepEqual(ids(out.messages), [md5(a)]);
  const gemini = [
    { role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: a } }] },
    { role: 'user', parts: [{ text: 'and?' }] },
  ];
  const g = await compactContext(gemini, { stash, format: 'gemini' });
  assert.deepEqual(ids(g.messages), [md5(a)]);
});

test('a stash cleared under the memo gets every record written again', async () => {
  const [a, b] = [await b64Of(331), await b64Of(332)];
  const history = [openai(a), openai(b), question];
  const stash = await memory();
  await compactContext(history, { stash });
  await stash.clear();
  const again = await counting(() => compactContext(history, { stash }));
  assert.equal(again.hashed, 0);
  assert.equal(again.value.report.written, 2);
  const back = await expandContext(again.value.messages, { stash });
  assert.equal(back.report.restored, 2);
  assert.deepEqual(back.messages, history);
});

test('two stashes each get their own records, and share no memory', async () => {
  const [a, b] = [await b64Of(341), await b64Of(342)];
  const history = [openai(a), openai(b), question];
  const one = await memory();
  const two = await memory();
  await compactContext(history, { stash: one });
  // What the first stash's calls remember is its own: the second hashes anew.
  const other = await counting(() => compactContext(history, { stash: two }));
  assert.equal(other.hashed, 2);
  const again = await counting(() => compactContext(history, { stash: two }));
  assert.equal(again.hashed, 0);
  assert.equal(other.value.report.written, 2);
  await one.clear();
  const back = await expandContext(other.value.messages, { stash: two });
  assert.equal(back.report.restored, 2);
  assert.deepEqual(back.messages, history);
  // The first stash, cleared, holds none of them.
  const missing = await expandContext(other.value.messages, { stash: one });
  assert.equal(missing.report.restored, 0);
  assert.equal(missing.report.missing.length, 2);
});

test('concurrent calls give what calls one after another give', async () => {
  const [a, b, c] = [await b64Of(351), await b64Of(352), await b64Of(353)];
  const h1 = [openai(a), openai(b), question];
  const h2 = [openai(b), openai(c), question];
  const [s1, s2] = [await memory(), await memory()];
  const together = await Promise.all([compactContext(h1, { stash: s1 }), compactContext(h2, { stash: s1 }), compactContext(h1, { stash: s2 }), compactContext(h2, { stash: s2 })]);
  const apart = [];
  const [t1, t2] = [await memory(), await memory()];
  for (const [h, s] of [[h1, t1], [h2, t1], [h1, t2], [h2, t2]]) apart.push(await compactContext(structuredClone(h), { stash: s }));
  assert.deepEqual(together.map((r) => r.messages), apart.map((r) => r.messages));
  assert.deepEqual(ids(together[1].messages), [md5(b), md5(c)]);
  for (const s of [s1, s2]) {
    const listed = (await s.list()).map((e) => e.id).sort();
    assert.deepEqual(listed, [md5(a), md5(b), md5(c)].sort());
  }
});

test('a tool result sent again is not hashed again, whatever key holds its payload, and a changed payload gets its own id', async () => {
  const [a, b, c] = [await b64Of(381), await b64Of(382, 'jpeg'), await b64Of(383)];
  // A known binary field, an MCP image block's `data`, and a field of the
  // tool's own naming.
  const result = { metadata: { imageBase64: `data:image/png;base64,${a}` }, content: [{ type: 'image', data: b, mimeType: 'image/jpeg' }], capture: { raw: c } };
  const stash = await memory();
  const options = { stash, thresholdBytes: 1024 };
  const first = await counting(() => sanitizeToolResult(result, options));
  assert.equal(first.hashed, 3);
  const markers = JSON.stringify(first.value);
  for (const payload of [a, b, c]) assert.ok(markers.includes(`[Binary:history_${md5(payload)} `), markers);
  const again = await counting(() => sanitizeToolResult(result, options));
  assert.equal(again.hashed, 0);
  assert.equal(JSON.stringify(again.value), markers);
  // The same object with a new string where `raw` was.
  const d = await b64Of(384);
  const changed = await counting(() => sanitizeToolResult({ ...result, capture: { raw: d } }, options));
  assert.equal(changed.hashed, 1);
  assert.ok(JSON.stringify(changed.value).includes(`[Binary:history_${md5(d)} `));
  stash.free();
});

test('a tool result that is the base64 text itself is not hashed again when sent again; text that may be JSON is still read as JSON', async () => {
  const [a, b] = [await b64Of(385), await b64Of(386)];
  const stash = await memory();
  const options = { stash, thresholdBytes: 1024 };
  const first = await counting(() => sanitizeToolResult(a, options));
  assert.equal(first.hashed, 1);
  assert.equal(typeof first.value, 'string');
  assert.ok(first.value.startsWith(`[Binary:history_${md5(a)} image/png `), first.value);
  const again = await counting(() => sanitizeToolResult(a, options));
  assert.equal(again.hashed, 0);
  assert.equal(again.value, first.value);
  // Another text: its own id.
  const other = await counting(() => sanitizeToolResult(b, options));
  assert.equal(other.hashed, 1);
  assert.ok(other.value.startsWith(`[Binary:history_${md5(b)} `), other.value);
  // Text that opens a JSON object (after white space) is parsed and written
  // back as JSON text, its payload replaced.
  const json = await sanitizeToolResult(`  \n{"imageBase64":"${a}","ok":true}`, options);
  assert.equal(typeof json, 'string');
  assert.deepEqual(JSON.parse(json), { imageBase64: first.value, ok: true });
  // Short text and text that is not base64 come back as they were given.
  const prose = 'a tool said: '.repeat(200);
  assert.equal(await sanitizeToolResult(prose, options), prose);
  assert.equal(await sanitizeToolResult('ok', options), 'ok');
  stash.free();
});

test('compactContext with sanitizeToolResults: a tool result sent again is not hashed again, and everything else reads exactly as without', async () => {
  const [a, b] = [await b64Of(387), await b64Of(388, 'jpeg')];
  // Long strings that begin as base64 but are no payload: a hex dump a user
  // pasted, a tool's text that turns to prose (with characters JSON
  // escapes and one it does not), and one holding what begins a reference.
  const hex = 'deadbeef'.repeat(400);
  const prose = `${'QUJD'.repeat(400)} and then words, "quoted", é\n`;
  const forged = `${'QUJD'.repeat(400)}\u0000ctxpack\u00011\u00010\u0000`;
  const call = (id) => ({ id, type: 'function', function: { name: 'screenshot', arguments: '{}' } });
  const history = [
    { role: 'user', content: 'take screenshots' },
    { role: 'assistant', content: null, tool_calls: [call('c1'), call('c2'), call('c3'), call('c4')] },
    // The base64 itself, then in JSON text (which is copied and parsed).
    { role: 'tool', tool_call_id: 'c1', content: a },
    { role: 'tool', tool_call_id: 'c2', content: JSON.stringify({ imageBase64: b }) },
    { role: 'tool', tool_call_id: 'c3', content: prose },
    { role: 'tool', tool_call_id: 'c4', content: forged },
    { role: 'user', content: hex },
    { role: 'assistant', content: 'done' },
    { role: 'user', content: 'and now?' },
  ];
  const stash = await memory();
  const options = { stash, sanitizeToolResults: true };
  const first = await counting(() => compactContext(history, options));
  // The host hashes each long text in the tool results that begins as
  // base64 (the image, the prose, the forged one), once; the JSON text is
  // copied in and hashed there.
  assert.equal(first.hashed, 3);
  assert.equal(first.value.report.binariesStashed, 2);
  assert.equal(first.value.messages[2].content.startsWith(`[Binary:history_${md5(a)} image/png `), true, first.value.messages[2].content);
  assert.match(JSON.parse(first.value.messages[3].content).imageBase64, new RegExp(`^\\[Binary:history_${md5(b)} image/jpeg `));
  // What is no binary comes back as the caller's own message.
  for (const i of [0, 1, 4, 5, 6, 7, 8]) assert.equal(first.value.messages[i], history[i], `message ${i}`);
  const again = await counting(() => compactContext(history, options));
  assert.equal(again.hashed, 0);
  assert.deepEqual(again.value.messages, first.value.messages);
  assert.deepEqual(again.value.report, first.value.report);
  // The sizes count every string as the text it is, with its JSON escapes
  // and in UTF-8, as JSON.stringify writes it: the held texts (the image,
  // the prose) too. (The forged text aside: a string holding U+0000 stays
  // in JavaScript as it is, and is counted without its escapes.)
  const unforged = history.filter((_, i) => i !== 5).map((m) => (m.tool_calls ? { ...m, tool_calls: [call('c1'), call('c2'), call('c3')] } : m));
  const sized = await compactContext(unforged, options);
  assert.equal(sized.report.binariesStashed, 2);
  assert.equal(sized.report.bytesBefore, jsonBytes(unforged));
  assert.equal(sized.report.bytesAfter, jsonBytes(sized.messages));
  // With no binary in the tool results, sanitizing changes nothing at all.
  const noBinary = history.filter((_, i) => i !== 2 && i !== 3).map((m) => (m.tool_calls ? { ...m, tool_calls: [call('c3'), call('c4')] } : m));
  const on = await compactContext(noBinary, options);
  const off = await compactContext(noBinary, { stash });
  assert.deepEqual(on.report, off.report);
  on.messages.forEach((m, i) => assert.equal(m, noBinary[i], `message ${i}`));
  stash.free();
});

test('bytes changed in place are read again (only strings are remembered)', async () => {
  const png = Buffer.from(await b64Of(361), 'base64');
  const bytes = new Uint8Array(png);
  const aiSdk = [
    { role: 'user', content: [{ type: 'image', image: bytes, mediaType: 'image/png' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
    { role: 'user', content: [{ type: 'text', text: 'and?' }] },
  ];
  const stash = await memory();
  const first = await compactContext(aiSdk, { stash, format: 'ai-sdk' });
  assert.deepEqual(ids(first.messages), [md5(Buffer.from(bytes).toString('base64'))]);
  bytes[bytes.length - 20] ^= 0xff;
  const again = await compactContext(aiSdk, { stash, format: 'ai-sdk' });
  assert.deepEqual(ids(again.messages), [md5(Buffer.from(bytes).toString('base64'))]);
  assert.notDeepEqual(ids(again.messages), ids(first.messages));
});

test('an estimate of a history sent again reads no header again, and a changed string is measured anew', async () => {
  const [a, b] = [await b64Of(371, 'jpeg'), await b64Of(372)];
  const big = (await makeImage('png', 640, 480, 373)).toString('base64');
  const part = { type: 'image_url', image_url: { url: `data:image/jpeg;base64,${a}` } };
  const history = [{ role: 'user', content: [part] }, openai(b), question];
  // Estimates remember in the stash they are made with.
  const stash = await memory();
  const before = headReads;
  const first = estimate(history, { provider: 'anthropic', stash });
  const read = headReads - before;
  assert.ok(read >= 2, `the first estimate reads each header (${read})`);
  const again = estimate(history, { provider: 'anthropic', stash });
  assert.equal(headReads - before, read, 'no header read again');
  assert.deepEqual(again, first);
  assert.deepEqual(first.images.map((i) => [i.width, i.height]), [[120, 90], [120, 90]]);
  // After a compaction hashed them, estimates still agree and read nothing.
  await compactContext(history, { stash });
  const compacted = headReads;
  assert.deepEqual(estimate(history, { provider: 'anthropic', stash }), first);
  assert.equal(headReads, compacted);
  // A new string in the same part object: that image is measured anew.
  part.image_url.url = `data:image/png;base64,${big}`;
  const changed = estimate(history, { provider: 'anthropic', stash });
  assert.deepEqual(changed.images.map((i) => [i.width, i.height]), [[640, 480], [120, 90]]);
  assert.deepEqual(changed, estimate(structuredClone(history), { provider: 'anthropic' }));
  // A string only measured and then compacted gets the id of its own text.
  const out = await compactContext(history, { stash });
  assert.deepEqual(ids(out.messages), [md5(big), md5(b)]);
});
