// compactRequestBody: a request body as a server receives it, compacted as
// text. Every test checks the body against compactContext on the parsed
// messages (a second stash), and byte counts against
// Buffer.byteLength(JSON.stringify(…)); every byte outside the changed
// messages must come back as sent. The package is a copy whose glue counts
// every string copied into wasm memory, so the body is seen to cross once.
import test from 'node:test';
import assert from 'node:assert/strict';
import { makeImage } from '../fixtures/make.mjs';
import { createRequire } from 'node:module';
import { copiedBy, countedPackage } from './support/counted_package.mjs';

const ctx = countedPackage();
const { Stash, CtxpackError, compactContext, compactRequestBody } = ctx;

const memory = () => Stash.open({ backend: 'memory' });
/** How the package's entry makes a report of what the full module answers. */
const { answerParts, reportOf } = createRequire(import.meta.url)('../../dist/node/api/request-body.js');
/** `f(full, options)`: the full module (where compactRequestBody runs) and `options` with its stash for the main module's. */
const inFull = (options, f) => ctx.__inFull(options, f);
/** The names of the formats, a report's format an index among them. */
const formats = await inFull({}, (full) => full.__formatNames());
/**
 * The full module's answer as one object: the edits, the report as the
 * entry makes it, the counts (after the report's numbers), and `alone`:
 * whether the answer was the numbers alone.
 */
const internalAnswer = (a) => {
  const { numbers, ranges, texts, rare } = answerParts(a);
  return { ranges, texts, report: reportOf(numbers, formats, rare), known: numbers.at(-4), reused: numbers.at(-3), readFrom: numbers.at(-2), factsRead: numbers.at(-1), alone: a instanceof Float64Array };
};
const b64Of = async (seed, format = 'png') => (await makeImage(format, 96, 64, seed)).toString('base64');
const jsonBytes = (messages) => messages.reduce((n, m) => n + Buffer.byteLength(JSON.stringify(m)), 0);

/** Where a format's requests keep their messages. */
const keyOf = (format) => ({ 'openai-responses': 'input', 'gemini-interactions': 'input', gemini: 'contents' })[format] ?? 'messages';

/**
 * Compacts `body` as text (into stash `a`) and its parsed messages as
 * objects (into stash `b`), asserts they agree, and returns the text form's
 * answer.
 */
async function agree(body, options, a, b, key = keyOf(options.format)) {
  const parsed = JSON.parse(body);
  const messages = key ? parsed[key] : parsed;
  const objects = await compactContext(messages, { ...options, stash: b });
  const text = await compactRequestBody(body, { ...options, stash: a });
  assert.deepEqual(text.report, objects.report);
  assert.equal(JSON.stringify(text.report), JSON.stringify(objects.report), 'key for key, in the same order');
  assert.equal(text.report.bytesBefore, jsonBytes(messages));
  assert.equal(text.report.bytesAfter, jsonBytes(objects.messages));
  const out = JSON.parse(text.body);
  assert.deepEqual(key ? out[key] : out, JSON.parse(JSON.stringify(objects.messages)));
  if (key) assert.deepEqual({ ...out, [key]: null }, { ...parsed, [key]: null }, 'the rest of the body as sent');
  // Byte for byte outside the changed messages: the edits (asked of a
  // fresh stash, whose report is the same) replace exactly the changed
  // messages' text as sent.
  const fresh = await Stash.open({ backend: 'memory' });
  const bytes = Buffer.from(body);
  const { ranges, texts, report, alone } = await inFull({ ...options, stash: fresh }, (full, o) => full.__compactRequestBody(bytes, o).then(internalAnswer));
  fresh.free();
  // The numbers alone (one value made) exactly when there is nothing to
  // splice and nothing seldom to say.
  const seldom = report.failures.length > 0 || report.limitProblem !== undefined || report.offloadNote !== undefined;
  assert.equal(alone, texts.length === 0 && !seldom, 'the numbers alone when nothing else is said');
  const changed = objects.messages.flatMap((m, i) => (m === messages[i] ? [] : [i]));
  assert.equal(texts.length, changed.length);
  const spliced = [];
  let at = 0;
  changed.forEach((i, k) => {
    assert.deepEqual(JSON.parse(bytes.subarray(ranges[2 * k], ranges[2 * k + 1]).toString()), messages[i], `edit ${k} replaces message ${i}`);
    spliced.push(bytes.subarray(at, ranges[2 * k]), Buffer.from(texts[k]));
    at = ranges[2 * k + 1];
  });
  spliced.push(bytes.subarray(at));
  assert.equal(text.body, Buffer.concat(spliced).toString());
  return text;
}

test('a body compacts as its parsed messages do, in every format, every other byte as sent (and one where nothing changes)', async () => {
  const [png, jpeg] = [await b64Of(1), await b64Of(2, 'jpeg')];
  const bodies = {
    openai: [{ role: 'user', content: [{ type: 'text', text: 'é 😀 看' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } }] }, { role: 'assistant', content: 'seen ✓' }, { role: 'user', content: 'next 😀' }],
    anthropic: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: jpeg } }, { type: 'text', text: 'ü' }] }, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'again' }],
    gemini: [{ role: 'user', parts: [{ text: '图' }, { inlineData: { mimeType: 'image/png', data: png } }] }, { role: 'model', parts: [{ text: 'ok' }] }, { role: 'user', parts: [{ text: 'more' }] }],
    'openai-responses': [{ role: 'user', content: [{ type: 'input_image', image_url: `data:image/png;base64,${png}`, detail: 'auto' }] }, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'more' }],
  };
  for (const [format, messages] of Object.entries(bodies)) {
    const [a, b] = [await memory(), await memory()];
    const key = keyOf(format);
    // Pretty-printed, other keys around the messages, non-ASCII before them.
    const body = JSON.stringify({ model: 'm-ü😀', [key]: messages, stream: true, tools: [{ name: '工具' }] }, null, 2);
    for (const named of [format, undefined]) {
      const { report, body: out } = await agree(body, { format: named }, a, b, key);
      assert.equal(report.format, format);
      assert.equal(report.stashed + report.deduplicated, 1, format);
      assert.ok(!out.includes(format === 'anthropic' ? jpeg : png), `${format}: the payload left the body`);
      assert.ok(out.startsWith('{\n  "model": "m-ü😀",\n'), 'the text before the messages as sent');
      // Without the image nothing changes: the full module answers the
      // report's numbers alone, the format among them (the one named, or
      // detected as compactContext detects it: agree() holds the two).
      const unchanged = JSON.stringify({ model: 'm', [key]: messages.slice(1) });
      const same = await agree(unchanged, { format: named }, a, b, key);
      assert.equal(same.body, unchanged);
      if (named) assert.equal(same.report.format, format);
    }
    a.free();
    b.free();
  }
  // A bare array of messages.
  const [a, b] = [await memory(), await memory()];
  await agree(JSON.stringify(bodies.openai), {}, a, b, null);
});

test('the report is compactContext\'s key for key, in its order, with failures, a limit problem and an offload note', async () => {
  const png = await b64Of(11);
  const image = (seed) => ({ type: 'image_url', image_url: { url: `data:image/png;base64,${seed}` } });
  const chat = [{ role: 'user', content: [{ type: 'text', text: 'look ✓' }, image(png)] }, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'next' }];
  // A stash whose writes fail: the image stays inline, and the report says why.
  const failing = () => Stash.open({ backend: { get: async () => undefined, put: async () => { throw new Error('disk full'); }, delete: async () => undefined, keys: async () => [] } });
  const cases = [
    ['an image stashed', chat, {}, memory],
    ['a failed write', chat, {}, failing],
    ['a limit problem', [{ role: 'user', content: Array.from({ length: 3 }, () => ({ type: 'image_url', image_url: { url: 'https://x.test/a.png' } })) }], { model: { provider: 'openai', maxImages: 2 } }, memory],
    ['an offload note', chat, { keepRecentImages: 1, offload: { upload: async () => ({}), minBytes: 0 } }, memory],
  ];
  for (const [name, messages, options, open] of cases) {
    const body = JSON.stringify({ model: 'gpt-4o', messages });
    const objects = await compactContext(messages, { ...options, stash: await open() });
    for (const given of [body, Buffer.from(body)]) {
      const { report } = await compactRequestBody(given, { ...options, stash: await open() });
      assert.equal(JSON.stringify(report), JSON.stringify(objects.report), name);
    }
  }
  const reports = await Promise.all(cases.map(async ([, messages, options, open]) => (await compactContext(messages, { ...options, stash: await open() })).report));
  assert.equal(reports[0].stashed, 1);
  assert.match(reports[1].failures[0]?.reason ?? '', /disk full/);
  assert.equal(reports[2].fits, false);
  assert.match(reports[2].limitProblem, /newest turn/);
  assert.match(reports[3].offloadNote, /^openai images stay inline/);
});

test('a body with nothing to change comes back as the very string sent', async () => {
  const stash = await memory();
  const body = JSON.stringify({ messages: [{ role: 'user', content: 'hi 😀' }], model: 'm' });
  const { body: out, report } = await compactRequestBody(body, { stash });
  assert.equal(out, body);
  assert.equal(report.stashed, 0);
  assert.equal(report.bytesBefore, Buffer.byteLength(JSON.stringify({ role: 'user', content: 'hi 😀' })));
});

test('the body crosses into wasm once; a message received before that compaction cannot change is not read again', async () => {
  const stash = await memory();
  const shot = await b64Of(7);
  const chat = [{ role: 'system', content: 'You are an agent.' }];
  for (let i = 0; i < 120; i++) {
    chat.push({ role: 'user', content: [{ type: 'text', text: `task ${i} ✓` }] });
    chat.push({ role: 'assistant', content: null, tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'read', arguments: `{"i":${i}}` } }] });
    chat.push({ role: 'tool', tool_call_id: `c${i}`, content: JSON.stringify({ ok: true, i }) });
  }
  chat.splice(5, 0, { role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${shot}` } }] });
  chat.push({ role: 'user', content: 'now?' });
  const send = (messages) => Buffer.from(JSON.stringify({ model: 'm', messages }));
  const internal = (body, ...after) => inFull({ stash }, (full, o) => full.__compactRequestBody(body, o, ...after).then(internalAnswer));
  let body = send(chat);
  const twin = await memory();
  await compactContext(JSON.parse(body).messages, { stash: twin });
  const first = await copiedBy(() => internal(body));
  assert.ok(first.copied <= body.length + 64, `the body crossed once: ${first.copied} for ${body.length}`);
  assert.equal(first.value.known, 0);
  chat.push({ role: 'assistant', content: 'done' }, { role: 'user', content: 'next ✓' });
  body = send(chat);
  // Given whole: every message is found by its text.
  const second = await copiedBy(() => internal(body));
  assert.ok(second.copied <= body.length + 64, `again once: ${second.copied} for ${body.length}`);
  // Every message sent before but the one with an inline image.
  assert.equal(second.value.known, chat.length - 3);
  assert.equal(second.value.reused, 0);
  // And the answer is what reading every message gives.
  let objects = await compactContext(JSON.parse(body).messages, { stash: twin });
  const [ranges, texts] = [second.value.ranges, second.value.texts];
  assert.equal(texts.length, 1);
  assert.deepEqual(JSON.parse(texts[0]), objects.messages[5]);
  assert.equal(body.subarray(ranges[0], ranges[1]).toString(), JSON.stringify(chat[5]));
  assert.deepEqual(second.value.report, objects.report);
  // Given only after the bytes it shares with the body the stash keeps:
  // those bytes do not cross again, and every message within them is
  // taken as it was read, the one with an image too.
  const [kept, lastStart] = await inFull({ stash }, (full, o) => full.__previousRequestBodies(o.stash));
  assert.equal(Buffer.compare(Buffer.from(kept), body), 0, 'the stash keeps the body before');
  // With where its last message begins: the next turn shares the bytes before it.
  assert.equal(lastStart, body.lastIndexOf(Buffer.from(JSON.stringify(chat.at(-1)))));
  const before = chat.length;
  chat.push({ role: 'assistant', content: 'ok' }, { role: 'user', content: 'last ✓' });
  const next = send(chat);
  const same = body.length - 2;
  assert.equal(Buffer.compare(next.subarray(0, same), body.subarray(0, same)), 0);
  const third = await copiedBy(() => internal(next.subarray(same), same, 0));
  assert.ok(third.copied <= next.length - same, `only the new bytes crossed: ${third.copied} for ${next.length - same}`);
  assert.equal(third.value.reused, before);
  // The messages were looked for from the end of the last one kept on, a
  // byte within those the two bodies share; a body given whole, from 0.
  assert.ok(third.value.readFrom > 0 && third.value.readFrom <= same, `read from ${third.value.readFrom}`);
  assert.equal(second.value.readFrom, 0);
  objects = await compactContext(JSON.parse(next).messages, { stash: twin });
  assert.deepEqual(third.value.report, objects.report);
  assert.deepEqual(JSON.parse(third.value.texts[0]), objects.messages[5]);
  // The bytes after a body no longer kept are refused.
  const other = await memory();
  const e = await inFull({ stash: other }, (full, o) => full.__compactRequestBody(next.subarray(same), o, same, 0)).then(() => null, (e) => e);
  assert.ok(e instanceof CtxpackError && e.code === 'INVALID_ARGUMENT' && e.path === 'body', String(e));
  // What the package does: compares, hands over the new bytes, splices.
  chat.push({ role: 'assistant', content: 'done again' });
  const fourth = send(chat);
  const entry = await copiedBy(() => compactRequestBody(fourth, { stash }));
  assert.ok(entry.copied < 200, `the entry handed over the new bytes: ${entry.copied}`);
  objects = await compactContext(JSON.parse(fourth).messages, { stash: twin });
  assert.ok(entry.value.body instanceof Uint8Array);
  assert.deepEqual(JSON.parse(Buffer.from(entry.value.body)).messages, JSON.parse(JSON.stringify(objects.messages)));
  assert.deepEqual(entry.value.report, objects.report);
  // The same as the chunks a server read it in, cut inside the bytes the
  // two bodies share and inside the new ones: only the new bytes cross.
  chat.push({ role: 'user', content: 'and the chunks ✓' });
  const fifth = send(chat);
  const cut = [fifth.subarray(0, 1000), fifth.subarray(1000, fourth.length - 5), fifth.subarray(fourth.length - 5, fifth.length - 3), fifth.subarray(fifth.length - 3)];
  const chunked = await copiedBy(() => compactRequestBody(cut, { stash }));
  assert.ok(chunked.copied < 200, `the entry handed over the new bytes: ${chunked.copied}`);
  objects = await compactContext(JSON.parse(fifth).messages, { stash: twin });
  assert.deepEqual(JSON.parse(Buffer.concat(chunked.value.body)).messages, JSON.parse(JSON.stringify(objects.messages)));
  assert.deepEqual(chunked.value.report, objects.report);
});

test('a call that waits for nothing has done its work when it returns; one that waits for its stash goes on and agrees', async () => {
  const chat = [{ role: 'system', content: 'You are an agent.' }, { role: 'user', content: [{ type: 'text', text: `look ✓ [Picture:history_${'ab'.repeat(16)}]` }] }];
  const body = Buffer.from(JSON.stringify({ model: 'gpt-4o', messages: chat }));
  // A memory stash answers at once: the body is kept, and the promise
  // settled, before the call returns.
  const stash = await memory();
  const answer = await inFull({ stash }, (full, o) => {
    const before = full.__previousRequestBodies(o.stash).length;
    const pending = full.__compactRequestBody(body, o);
    const kept = full.__previousRequestBodies(o.stash);
    assert.equal(kept.length, before + 2, 'kept by the time the call returned');
    assert.equal(Buffer.compare(Buffer.from(kept[0]), body), 0);
    return pending.then(internalAnswer);
  });
  // A stash whose adapter answers later: the call waits for it, and the
  // body is kept once it has gone on, with the same answer.
  const map = new Map();
  const later = (v) => new Promise((resolve) => setTimeout(() => resolve(v), 5));
  const adapter = {
    get: (k) => later(map.get(k)),
    put: (k, v) => later(void map.set(k, v)),
    delete: (k) => later(void map.delete(k)),
    keys: () => later([...map.keys()]),
  };
  const slow = await Stash.open({ backend: adapter });
  const waited = await inFull({ stash: slow }, (full, o) => {
    const pending = full.__compactRequestBody(body, o);
    assert.equal(full.__previousRequestBodies(o.stash).length, 0, 'still waiting for the stash');
    return pending.then((a) => {
      assert.equal(full.__previousRequestBodies(o.stash).length, 2);
      return internalAnswer(a);
    });
  });
  assert.deepEqual(waited.report, answer.report);
  assert.deepEqual([...waited.ranges], [...answer.ranges]);
});

test('a stash closed or freed after calls with it is refused by the next call, and its twin is closed with it', async () => {
  const body = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }] });
  for (const end of ['close', 'free', Symbol.dispose]) {
    const stash = await memory();
    await compactRequestBody(Buffer.from(body), { stash, format: 'openai' });
    const twin = await inFull({ stash }, (full, o) => o.stash);
    assert.equal(await inFull({ stash }, (full, o) => full.__previousRequestBodies(o.stash).length), 2, 'the twin keeps the body');
    stash[end]();
    await new Promise((resolve) => setTimeout(resolve, 0));
    await assert.rejects(compactRequestBody(Buffer.from(body), { stash, format: 'openai' }), (e) => {
      assert.ok(e instanceof CtxpackError, String(e));
      assert.equal(e.path, 'options.stash');
      if (end === 'close') assert.match(e.message, /this stash was closed/);
      return true;
    }, String(end));
    // The twin was closed with it (which lets go of what it kept).
    await assert.rejects(twin.list(), /this stash was closed/, String(end));
  }
});

test('edits in place between bodies: a message changed is read again, one removed or moved is found by its text', async () => {
  const [a, b] = [await memory(), await memory()];
  const placeholder = `[Picture:history_${'0'.repeat(32)}]`;
  const chat = [
    { role: 'user', content: [{ type: 'text', text: `see ${placeholder}` }] },
    { role: 'assistant', content: 'one' },
    { role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${await b64Of(11)}` } }] },
    { role: 'assistant', content: 'two' },
    { role: 'user', content: 'three' },
  ];
  const send = () => JSON.stringify({ messages: chat });
  await agree(send(), { keepRecentImages: 0 }, a, b);
  // Text appended to the last message, a part replaced, a message removed
  // from the middle, the order changed: each body agrees with reading it.
  chat[4].content += ' more';
  await agree(send(), {}, a, b);
  chat[0].content[0] = { type: 'text', text: 'no picture now' };
  await agree(send(), {}, a, b);
  chat.splice(1, 1);
  await agree(send(), {}, a, b);
  chat.reverse();
  await agree(send(), {}, a, b);
  // Another format over the same texts, and a cleared stash.
  await agree(send(), { format: 'openai' }, a, b);
  await a.clear();
  await b.clear();
  await agree(send(), {}, a, b);
});

test('two bodies compacted at once agree with each other and with the objects', async () => {
  const [a, b] = [await memory(), await memory()];
  const body = JSON.stringify({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${await b64Of(21)}` } }] }, { role: 'user', content: 'go' }] });
  const [x, y] = await Promise.all([compactRequestBody(body, { stash: a }), compactRequestBody(body, { stash: a })]);
  assert.equal(x.body, y.body);
  const objects = await compactContext(JSON.parse(body).messages, { stash: b });
  assert.deepEqual(JSON.parse(x.body).messages, JSON.parse(JSON.stringify(objects.messages)));
});

test('what is no request body is refused with a CtxpackError and its path', async () => {
  const stash = await memory();
  const refused = async (body, code, path, options = {}) => {
    const e = await compactRequestBody(body, { stash, ...options }).then(() => null, (e) => e);
    assert.ok(e instanceof CtxpackError, `${body}: ${e}`);
    assert.equal(e.code, code);
    assert.equal(e.path, path);
    return e;
  };
  await refused({ messages: [] }, 'INVALID_ARGUMENT', 'body');
  await refused('{"messages": [', 'INVALID_ARGUMENT', 'body');
  await refused('{"messages": 3}', 'INVALID_ARGUMENT', 'body.messages');
  await refused('{"model": "m"}', 'INVALID_ARGUMENT', 'body');
  await refused('{"contents": []}', 'INVALID_ARGUMENT', 'body', { format: 'openai' });
  await refused('"text"', 'INVALID_ARGUMENT', 'body');
  await refused('{"messages": []}\ud800', 'INVALID_ARGUMENT', 'body');
  await refused('{"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": 5}}]}]}', 'INVALID_MESSAGE', 'messages[0].content[0].image_url.url');
  await refused('{"messages": []}', 'INVALID_OPTION', 'options.format', { format: 'nope' });
  // A Responses body of one prompt holds no message.
  const one = '{"input": "hello", "model": "m"}';
  assert.equal((await compactRequestBody(one, { stash })).body, one);
});

test('a computer-use loop as body text: the answered screenshots go as pictures of their placeholders, as compactContext gives them', async () => {
  const shots = await Promise.all([0, 1, 2].map((n) => b64Of(720 + n)));
  const input = [{ role: 'user', content: 'Click through the page.' }];
  shots.forEach((shot, n) => {
    input.push({ type: 'computer_call', call_id: `c${n}`, action: { type: 'screenshot' }, pending_safety_checks: [], status: 'completed' });
    input.push({ type: 'computer_call_output', call_id: `c${n}`, output: { type: 'computer_screenshot', image_url: `data:image/png;base64,${shot}` } });
  });
  const body = JSON.stringify({ model: 'computer-use-preview', input });
  const text = await agree(body, { format: 'openai-responses', keepRecentImages: 0, slack: false }, await memory(), await memory());
  const urls = JSON.parse(text.body).input.filter((i) => i.type === 'computer_call_output').map((i) => i.output.image_url);
  // Drawn by the extras module for the main module, which has no encoder.
  for (const url of urls.slice(0, 2)) assert.match(url, /^data:image\/png;base64,iVBOR/);
  assert.equal(urls[2], `data:image/png;base64,${shots[2]}`);
});
