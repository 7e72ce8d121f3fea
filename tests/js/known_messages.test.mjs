// compactContext remembers the messages it cannot change (text, tool calls,
// placeholders, images by URL): a message object sent a second time and
// then, leaf by leaf, what that call read is remembered, and from its third
// send handed over by a key and not read again. Every test
// runs each call twice, on the caller's objects (remembered) and on a
// structured clone of them into a second stash (fresh objects: nothing
// remembered), and asserts the two give the same messages and report, and
// byte counts equal to an independent measure of the messages.
import test from 'node:test';
import assert from 'node:assert/strict';
import { makeImage } from '../fixtures/make.mjs';
import { copiedBy, countedPackage } from './support/counted_package.mjs';

const { Stash, compactContext, estimate, expandContext, fitContext, repairContext } = countedPackage();

const memory = () => Stash.open({ backend: 'memory' });
const b64Of = async (seed) => (await makeImage('png', 96, 64, seed)).toString('base64');
const imageMessage = (b64) => ({ role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${b64}` } }] });
/** The sum of each message's JSON length in UTF-8: what bytesBefore counts. */
const jsonBytes = (messages) => messages.reduce((n, m) => n + Buffer.byteLength(JSON.stringify(m)), 0);

/** An agent's chat: tool calls with JSON results, placeholders of `ids`. */
function agentChat(turns, ids = []) {
  const chat = [{ role: 'system', content: 'You are an agent.' }];
  for (let i = 0; i < turns; i++) {
    const text = [{ type: 'text', text: `task ${i}: read src/x${i}.rs` }];
    if (ids.length && i % 3 === 0) text.push({ type: 'text', text: `[Picture:history_${ids[(i / 3) % ids.length]}]` });
    chat.push({ role: 'user', content: text });
    chat.push({ role: 'assistant', content: null, tool_calls: [{ id: `call_${i}`, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: `src/x${i}.rs` }) } }] });
    chat.push({ role: 'tool', tool_call_id: `call_${i}`, content: JSON.stringify({ ok: true, text: 'fn main() {}\n'.repeat(3) }) });
    chat.push({ role: 'assistant', content: `src/x${i}.rs is read.` });
  }
  chat.push({ role: 'user', content: 'and now?' });
  return chat;
}

/** Two stashes fed the same calls: `remembered` on the caller's objects, `fresh` on clones. */
async function twins() {
  const [a, b] = [await memory(), await memory()];
  return async (messages, options = {}) => {
    const fresh = await compactContext(structuredClone(messages), { ...options, stash: b });
    const remembered = await compactContext(messages, { ...options, stash: a });
    assert.deepEqual(JSON.parse(JSON.stringify(remembered.messages)), JSON.parse(JSON.stringify(fresh.messages)));
    assert.deepEqual(remembered.report, fresh.report);
    // JSON.stringify writes a Uint8Array as an object of numbers: only text is measured so.
    let binary = false;
    JSON.stringify(messages, (k, v) => ((binary ||= v instanceof Uint8Array), v));
    if (!binary) {
      assert.equal(remembered.report.bytesBefore, jsonBytes(messages));
      assert.equal(remembered.report.bytesAfter, jsonBytes(remembered.messages));
    }
    return remembered;
  };
}

/** The ids of images stashed into `stash` by compacting `n` new ones. */
async function stashedIds(stash, n, seed) {
  const history = [];
  for (let i = 0; i < n; i++) history.push(imageMessage(await b64Of(seed + i)));
  history.push({ role: 'user', content: 'ok' });
  const { messages } = await compactContext(history, { stash });
  return messages.slice(0, n).map((m) => m.content[1].text.match(/history_([0-9a-f]{32})/)[1]);
}

test('a chat sent again copies into wasm only what its new messages hold', async () => {
  const stash = await memory();
  const chat = agentChat(60, await stashedIds(stash, 4, 700));
  const first = await copiedBy(() => compactContext(chat, { stash }));
  // The counter sees the first read: every message's text crosses.
  assert.ok(first.copied >= JSON.stringify(chat).length / 2, `first send copied ${first.copied}`);
  // Sent a second time: read again, and remembered.
  const second = await copiedBy(() => compactContext(chat, { stash }));
  assert.ok(second.copied >= JSON.stringify(chat).length / 2, `second send copied ${second.copied}`);
  const added = [{ role: 'assistant', content: 'Done with that.' }, { role: 'user', content: 'Now the tests, please.' }];
  const next = [...chat.slice(0, -1), ...added];
  const again = await copiedBy(() => compactContext(next, { stash }));
  // The two new messages, their keys and the options' strings: nothing of
  // the 240 messages read before.
  assert.ok(again.copied <= JSON.stringify(added).length + 64, `sent again, copied ${again.copied}`);
  assert.equal(again.value.report.bytesBefore, jsonBytes(next));
  // What a compaction that remembers nothing gives.
  const fresh = await compactContext(structuredClone(next), { stash });
  assert.deepEqual(again.value.report, fresh.report);
  // The caller's own objects come back.
  assert.ok(again.value.messages.slice(0, 200).every((m, i) => m === next[i]));
});

test('estimate remembers as compactContext does: a chat sent again copies only its new messages, and an edit in place is read', async () => {
  const stash = await memory();
  const urls = { role: 'user', content: [{ type: 'text', text: 'this one' }, { type: 'image_url', image_url: { url: 'https://x.test/a.png', detail: 'low' } }] };
  const chat = agentChat(60, await stashedIds(stash, 4, 720));
  chat.splice(3, 0, urls);
  // The memory is the stash's: the estimate is made with the stash the chat is compacted with.
  const options = { model: 'gpt-4o', stash };
  const twin = (messages) => estimate(structuredClone(messages), options);
  assert.deepEqual(estimate(chat, options), twin(chat));
  // Sent again: read and remembered; then a compaction of the same objects
  // finds the digests the estimate made, and the estimate those.
  assert.deepEqual(estimate(chat, options), twin(chat));
  const next = [...chat.slice(0, -1), { role: 'assistant', content: 'Done.' }, { role: 'user', content: 'Now the tests.' }];
  const again = await copiedBy(async () => estimate(next, options));
  assert.ok(again.copied <= JSON.stringify(next.slice(-2)).length + 64, `sent again, copied ${again.copied}`);
  const report = twin(next);
  assert.deepEqual(again.value, report);
  assert.equal(report.requestBytes, jsonBytes(next) + next.length + 1);
  assert.deepEqual(report.images.map((i) => i.path), ['messages[3].content[1]']);
  // Changed in place: read again, counted anew.
  urls.content[1].image_url.detail = 'high';
  next[5].content = `${next[5].content} (more)`;
  const edited = await copiedBy(async () => estimate(next, options));
  assert.ok(edited.copied > JSON.stringify(next[5]).length, 'the edited messages are read');
  assert.deepEqual(edited.value, twin(next));
  assert.notEqual(edited.value.imageTokens, report.imageTokens);
  // Another model's rules, and a compaction in between: the same answers.
  await compactContext(next, { stash });
  assert.deepEqual(estimate(next, { model: 'claude-sonnet-4-5' }), estimate(structuredClone(next), { model: 'claude-sonnet-4-5' }));
});

test('expandContext remembers too: a message naming no placeholder is not read again; one naming one always is', async () => {
  const [a, b] = [await memory(), await memory()];
  const ids = await stashedIds(a, 3, 740);
  await stashedIds(b, 3, 740);
  const chat = agentChat(60, ids);
  const twin = async (messages) => {
    const fresh = await expandContext(structuredClone(messages), { stash: b });
    const { value: remembered, copied } = await copiedBy(() => expandContext(messages, { stash: a }));
    remembered.copied = copied;
    assert.deepEqual(JSON.parse(JSON.stringify(remembered.messages)), JSON.parse(JSON.stringify(fresh.messages)));
    assert.deepEqual(remembered.report, fresh.report);
    assert.equal(remembered.report.bytesBefore, jsonBytes(messages));
    assert.equal(remembered.report.bytesAfter, jsonBytes(remembered.messages));
    return remembered;
  };
  await twin(chat);
  await twin(chat);
  const next = [...chat.slice(0, -1), { role: 'assistant', content: 'Done.' }, { role: 'user', content: 'Now the tests.' }];
  const withPlaceholders = next.filter((m) => JSON.stringify(m).includes('[Picture:history_'));
  const again = await twin(next);
  // The new messages, those naming a placeholder (expansion changes them)
  // and the restored records' ids, types and part templates: nothing of
  // the other messages read before.
  const bound = JSON.stringify(next.slice(-2)).length + JSON.stringify(withPlaceholders).length + 64 + 100 * ids.length;
  assert.ok(again.copied <= bound, `sent again, copied ${again.copied} (bound ${bound})`);
  assert.ok(again.copied < JSON.stringify(next).length / 3, `most of the chat not read: ${again.copied}`);
  assert.ok(again.report.restored >= 3);
  assert.ok(again.messages.every((m, i) => (withPlaceholders.includes(next[i]) ? m !== next[i] : m === next[i])));
  // A placeholder added in place to a message known before: read, expanded.
  next[6].content = `${typeof next[6].content === 'string' ? next[6].content : ''} [Picture:history_${ids[0]}]`;
  const edited = await twin(next);
  assert.notEqual(edited.messages[6], next[6]);
});

test('fitContext remembers too: a chat sent again copies only its new messages, and fits as reading every message does', async () => {
  const [a, b] = [await memory(), await memory()];
  const chat = agentChat(60);
  // Two history images (read on every call: a fitting may change them) and
  // one by URL in a message remembered with its path.
  chat.splice(1, 0, imageMessage(await b64Of(760)), imageMessage(await b64Of(761)));
  chat.splice(4, 0, { role: 'user', content: [{ type: 'text', text: 'this one' }, { type: 'image_url', image_url: { url: 'https://x.test/a.png' } }] });
  const options = { model: 'gpt-4o', limits: { maxImages: 2 } };
  const twin = async (messages) => {
    const fresh = await fitContext(structuredClone(messages), { ...options, stash: b });
    const { value: remembered, copied } = await copiedBy(() => fitContext(messages, { ...options, stash: a }));
    remembered.copied = copied;
    assert.deepEqual(JSON.parse(JSON.stringify(remembered.messages)), JSON.parse(JSON.stringify(fresh.messages)));
    assert.deepEqual(remembered.report, fresh.report);
    assert.equal(remembered.report.bytesBefore, jsonBytes(messages));
    assert.equal(remembered.report.bytesAfter, jsonBytes(remembered.messages));
    return remembered;
  };
  const first = await twin(chat);
  assert.equal(first.report.stashed, 1, 'one history image stashed to meet the limit');
  await twin(chat);
  const next = [...chat.slice(0, -1), { role: 'assistant', content: 'Done.' }, { role: 'user', content: 'Now the tests.' }];
  const again = await twin(next);
  // The new messages, the two image messages without their payloads
  // (which stay in JavaScript), the options and the stash's record of the
  // stashed image: nothing of the other messages read before.
  const imageText = 2 * JSON.stringify(imageMessage('')).length;
  const bound = JSON.stringify(next.slice(-2)).length + imageText + 400 + 64;
  assert.ok(again.copied <= bound, `sent again, copied ${again.copied} (bound ${bound})`);
  assert.ok(again.copied < JSON.stringify(next).length / 20, `most of the chat not read: ${again.copied}`);
  assert.ok(again.report.images.some((i) => i.path === 'messages[4].content[1]' && i.action === 'kept'));
  assert.ok(again.messages.every((m, i) => i < 3 || m === next[i]), 'the caller\'s own objects come back');
  // Edited in place: read again, fitted anew.
  next[8].content = `${next[8].content} (more)`;
  const edited = await twin(next);
  assert.ok(edited.copied > JSON.stringify(next[8]).length, 'the edited message is read');
});

test('repairContext remembers as fitContext does, and gives the refusal back', async () => {
  const [a, b] = [await memory(), await memory()];
  const chat = agentChat(60);
  chat.splice(1, 0, imageMessage(await b64Of(770)), imageMessage(await b64Of(771)));
  const error = 'Too many images in request. Max is 1.';
  const options = { model: 'gpt-4o' };
  const twin = async (messages) => {
    const fresh = await repairContext(structuredClone(messages), error, { ...options, stash: b });
    const { value: remembered, copied } = await copiedBy(() => repairContext(messages, error, { ...options, stash: a }));
    remembered.copied = copied;
    assert.deepEqual(JSON.parse(JSON.stringify(remembered.messages)), JSON.parse(JSON.stringify(fresh.messages)));
    assert.deepEqual(remembered.report, fresh.report);
    assert.deepEqual(remembered.refusal, fresh.refusal);
    return remembered;
  };
  const first = await twin(chat);
  assert.equal(first.refusal.kind, 'too-many-images');
  assert.equal(first.report.imagesAfter, 1);
  await twin(chat);
  const next = [...chat.slice(0, -1), { role: 'assistant', content: 'Done.' }, { role: 'user', content: 'Now the tests.' }];
  const again = await twin(next);
  assert.ok(again.copied < JSON.stringify(next).length / 20, `most of the chat not read: ${again.copied}`);
});

test('text appended in place is read again', async () => {
  // Checked: the leaf-by-leaf comparison (a message known by its object alone gives a stale size).
  const run = await twins();
  const chat = agentChat(5);
  await run(chat);
  await run(chat);
  chat[1].content[0].text += ' and then the tests';
  chat[4].content += ' It compiles.';
  const out = await run(chat);
  assert.equal(out.report.bytesBefore, jsonBytes(chat));
});

test('a part replaced in place by an image is read again, and the image stashed', async () => {
  // Checked: the comparison of the part objects (a known message would keep the image inline).
  const run = await twins();
  const chat = agentChat(3);
  await run(chat);
  await run(chat);
  chat[1].content[0] = imageMessage(await b64Of(711)).content[1];
  const out = await run(chat);
  assert.equal(out.report.stashed, 1);
  assert.match(JSON.stringify(out.messages[1]), /\[Picture:history_[0-9a-f]{32}\]/);
  assert.doesNotMatch(JSON.stringify(out.messages), /base64/);
});

test('a message holding an inline image is read on every call', async () => {
  // Checked: a message holding an inline image gets no digest (it would come back null, or keep its image).
  const run = await twins();
  const chat = [imageMessage(await b64Of(715)), { role: 'assistant', content: 'seen' }, imageMessage(await b64Of(716)), { role: 'user', content: 'and?' }];
  for (let turn = 0; turn < 3; turn++) {
    const out = await run(chat, { keepRecentImages: turn === 1 ? 1 : 0, slack: false });
    assert.equal(out.report.stashed, turn === 1 ? 1 : 2);
    assert.ok(out.messages.every((m) => m !== null && m !== undefined));
  }
});

test('an image whose bytes change in place is read again', async () => {
  // Checked: a message holding anything but plain objects, arrays and
  // primitives is never remembered (this fails with that rule and the
  // inline-image rule above both removed).
  const run = await twins();
  const bytes = new Uint8Array(await makeImage('png', 64, 48, 720));
  const chat = [
    { role: 'user', content: [{ type: 'text', text: 'see' }, { type: 'image', image: bytes, mediaType: 'image/png' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'seen' }] },
    { role: 'user', content: [{ type: 'text', text: 'and?' }] },
  ];
  await run(chat, { format: 'ai-sdk' });
  const first = await run(chat, { format: 'ai-sdk' });
  // One byte of the image data, changed in place in the same array.
  bytes[bytes.length >> 1] ^= 0xff;
  const second = await run(chat, { format: 'ai-sdk' });
  assert.notEqual(JSON.stringify(first.messages[0]), JSON.stringify(second.messages[0]));
});

test('a message removed from the middle, and the array reordered', async () => {
  const run = await twins();
  const stash = await memory();
  const chat = agentChat(6, await stashedIds(stash, 2, 730));
  await run(chat);
  await run(chat);
  chat.splice(5, 4);
  await run(chat);
  // A user message moved after the newest: the newest user message moves too.
  const reordered = [...chat.slice(0, 3), chat[chat.length - 1], ...chat.slice(3, -1)];
  const out = await run(reordered);
  assert.equal(out.report.newestUserIndex, reordered.length - 1 - [...reordered].reverse().findIndex((m) => m.role === 'user'));
});

test('the same objects compacted in another format are read in that format', async () => {
  // Checked: a digest serves only its own format. Read as OpenAI messages, an
  // AI SDK image part is an unknown part and the message holds no image.
  const run = await twins();
  const chat = [
    { role: 'user', content: [{ type: 'image', image: await b64Of(740), mediaType: 'image/png' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
    { role: 'user', content: [{ type: 'text', text: 'and?' }] },
  ];
  await run(chat, { format: 'openai' });
  const asOpenAi = await run(chat, { format: 'openai' });
  assert.equal(asOpenAi.report.stashed, 0);
  const asAiSdk = await run(chat, { format: 'ai-sdk' });
  assert.equal(asAiSdk.report.stashed, 1);
});

test('a stash cleared behind the memory, and the same objects in another stash', async () => {
  // Checked: placeholders a digest names are looked up in the stash on every call.
  const stash = await memory();
  const ids = await stashedIds(stash, 3, 750);
  const chat = agentChat(9, ids);
  await compactContext(chat, { stash });
  const first = await compactContext(chat, { stash });
  assert.equal(first.report.missing, 0);
  await stash.clear();
  const cleared = await compactContext(chat, { stash });
  const fresh = await compactContext(structuredClone(chat), { stash });
  assert.equal(cleared.report.missing, 3);
  assert.deepEqual(cleared.report, fresh.report);
  const other = await compactContext(chat, { stash: await memory() });
  assert.equal(other.report.missing, 3);
});

test('two conversations interleaved, and calls at once', async () => {
  const run = await twins();
  const stash = await memory();
  const ids = await stashedIds(stash, 2, 760);
  const [a, b] = [agentChat(4, ids), agentChat(7)];
  for (let turn = 0; turn < 3; turn++) {
    await run(a);
    await run(b);
    a.splice(-1, 0, { role: 'assistant', content: `turn ${turn}` });
    b[2].tool_calls[0].function.arguments = JSON.stringify({ path: `turn${turn}.rs` });
  }
  // Concurrent: the same chat twice at once, then changed before the calls end.
  const chat = agentChat(6, ids);
  await compactContext(chat, { stash });
  await compactContext(chat, { stash });
  const both = Promise.all([compactContext(chat, { stash }), compactContext(chat, { stash })]);
  const before = jsonBytes(chat);
  chat[1].content[0].text += ' (edited)';
  const [x, y] = await both;
  assert.equal(x.report.bytesBefore, before);
  assert.deepEqual(x.report, y.report);
  const edited = await compactContext(chat, { stash });
  assert.equal(edited.report.bytesBefore, jsonBytes(chat));
});
