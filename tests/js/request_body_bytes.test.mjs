// compactRequestBody of a body given as bytes, as a server reads a request,
// turn after turn: the stash keeps the body before, the next is compared
// with it, and only what follows the bytes the two share is read. Every
// answer is checked against compactContext of the parsed messages (a
// second stash): whatever the bodies share or not, the result is what
// reading each whole gives.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import path from 'node:path';
import { makeImage } from '../fixtures/make.mjs';

const { Stash, CtxpackError, compactContext, compactRequestBody } = await import('ctxpack');

// What the full module answered the package's entry: how many payloads'
// facts (their MD5 among them) each call read from the text.
const require = createRequire(import.meta.url);
const glue = require(path.join(path.dirname(require.resolve('ctxpack')), 'full/ctxpack_full.js'));
const { answerParts } = require(path.join(path.dirname(require.resolve('ctxpack')), 'api/request-body.js'));
const realCompact = glue.__compactRequestBody;
let factsRead = 0;
glue.__compactRequestBody = (...args) => realCompact(...args).then((answer) => {
  // The counts are the last numbers.
  factsRead += answerParts(answer).numbers.at(-1);
  return answer;
});

const memory = () => Stash.open({ backend: 'memory' });
const shotOf = async (seed) => (await makeImage('png', 160, 100, seed)).toString('base64');

/** A computer-use loop in Anthropic's format, `n` screenshots long, as bytes. */
function loop(shots, extra = {}) {
  const messages = [{ role: 'user', content: 'Fill in the form, é 日本.' }];
  shots.forEach((data, i) => {
    messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `tu_${i}`, name: 'computer', input: { action: 'screenshot' } }] });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `tu_${i}`, content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data } }] }] });
  });
  return { messages, bytes: Buffer.from(JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 1024, messages, ...extra })) };
}

/** Asserts `answer` (of a body holding `messages`) is what compactContext gives into `twin`. */
async function agrees(answer, messages, twin) {
  const objects = await compactContext(messages, { stash: twin, keepRecentImages: 3 });
  assert.ok(answer.body instanceof Uint8Array, 'bytes in, bytes out');
  assert.deepEqual(JSON.parse(Buffer.from(answer.body)).messages, JSON.parse(JSON.stringify(objects.messages)));
  assert.deepEqual(answer.report, objects.report);
}

test('a loop sent as bytes turn after turn: only each turn\'s new screenshot is read, and each turn gives what reading it whole gives', async () => {
  const shots = await Promise.all(Array.from({ length: 14 }, (_, i) => shotOf(900 + i)));
  const [stash, twin] = [await memory(), await memory()];
  let read = 0;
  let stashedOverTurns = 0;
  let last;
  for (let n = 1; n <= shots.length; n++) {
    const { messages, bytes } = loop(shots.slice(0, n));
    const before = factsRead;
    last = await compactRequestBody(bytes, { stash, keepRecentImages: 3 });
    read += factsRead - before;
    stashedOverTurns += last.report.stashed;
    await agrees(last, messages, twin);
  }
  assert.ok(last.report.stashed > 0, 'screenshots left for placeholders');
  // Each screenshot that left for the stash was read (hashed) once, on the
  // turn it left; read again on every turn, it would have been read on
  // each turn after.
  assert.equal(read, last.report.stashed);
  assert.ok(stashedOverTurns > last.report.stashed, `${stashedOverTurns} stashed over the turns`);
});

/**
 * `bytes` cut into chunks as a socket might deliver them: of `sizes` in
 * turn (0 gives an empty chunk), the last one the rest.
 */
function chunksOf(bytes, sizes) {
  const chunks = [];
  let at = 0;
  for (let k = 0; at < bytes.length; k++) {
    const size = k < sizes.length ? sizes[k] : bytes.length - at;
    chunks.push(bytes.subarray(at, Math.min(bytes.length, at + size)));
    at += size;
  }
  return chunks;
}

test('a body given as the chunks it was read in compacts as its bytes do, turn after turn, and comes back as pieces of those chunks', async () => {
  const shots = await Promise.all(Array.from({ length: 7 }, (_, i) => shotOf(990 + i)));
  const [byChunks, byBytes, twin] = [await memory(), await memory(), await memory()];
  // Cuts inside the first message's "é 日本" (bytes 48–54), a 1-byte
  // chunk, an empty one, and the socket's 64 KB.
  const cuts = [[50, 3, 1, 0, 65536], [49, 65536, 65536], [7, 0, 0, 52, 1, 100]];
  for (let n = 1; n <= shots.length; n++) {
    const { messages, bytes } = loop(shots.slice(0, n), { stream: true });
    const chunks = chunksOf(bytes, cuts[n % cuts.length]);
    const fromChunks = await compactRequestBody(chunks, { stash: byChunks, keepRecentImages: 3 });
    const fromBytes = await compactRequestBody(bytes, { stash: byBytes, keepRecentImages: 3 });
    assert.deepEqual(fromChunks.report, fromBytes.report);
    assert.ok(Array.isArray(fromChunks.body), 'chunks in, pieces out');
    assert.equal(Buffer.concat(fromChunks.body).toString(), Buffer.from(fromBytes.body).toString(), `turn ${n}`);
    await agrees({ body: Buffer.concat(fromChunks.body), report: fromChunks.report }, messages, twin);
    if (fromBytes.body === bytes) assert.equal(fromChunks.body, chunks, 'nothing changed: the very list');
    // Each piece is a view of a chunk given, or a changed message's text.
    const given = new Set(chunks.map((c) => c.buffer));
    for (const piece of fromChunks.body) {
      if (!given.has(piece.buffer)) assert.equal(typeof JSON.parse(Buffer.from(piece).toString()).role, 'string');
    }
    assert.ok(fromChunks.body.some((piece) => given.has(piece.buffer)), 'the chunks are not copied');
  }
  // A chunk that is not bytes is refused where it lies.
  const e = await compactRequestBody([Buffer.from('{"messages":'), '[]}'], { stash: byChunks }).then(() => null, (err) => err);
  assert.ok(e instanceof CtxpackError && e.code === 'INVALID_ARGUMENT' && e.path === 'body[1]', String(e));
});

test('a body given as bytes with nothing to change comes back as the very array', async () => {
  const stash = await memory();
  const bytes = Buffer.from(JSON.stringify({ messages: [{ role: 'user', content: 'hi 😀' }], model: 'm' }));
  const first = await compactRequestBody(bytes, { stash });
  assert.equal(first.body, bytes);
  const again = Buffer.from(bytes);
  assert.equal((await compactRequestBody(again, { stash })).body, again);
});

test('bodies that share little or nothing with the one before, on one stash, give what reading them whole gives', async () => {
  const shots = await Promise.all(Array.from({ length: 6 }, (_, i) => shotOf(930 + i)));
  const [stash, twin] = [await memory(), await memory()];
  const a = loop(shots.slice(0, 5));
  await agrees(await compactRequestBody(a.bytes, { stash, keepRecentImages: 3 }), a.messages, twin);
  // An earlier message edited by the client: the bodies part inside it.
  const edited = structuredClone(a.messages);
  edited[0].content = 'Fill in the other form.';
  edited.push({ role: 'assistant', content: 'ok' });
  const b = Buffer.from(JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 1024, messages: edited }));
  await agrees(await compactRequestBody(b, { stash, keepRecentImages: 3 }), edited, twin);
  // Another conversation on the same stash, then the first again.
  const other = loop(shots.slice(3, 6));
  await agrees(await compactRequestBody(other.bytes, { stash, keepRecentImages: 3 }), other.messages, twin);
  const c = loop(shots);
  await agrees(await compactRequestBody(c.bytes, { stash, keepRecentImages: 3 }), c.messages, twin);
  // The bodies part inside a screenshot's payload, and a key after the
  // messages that may hold messages too (the later one wins: read whole).
  const d = loop([...shots.slice(0, 5), shots[0]]);
  await agrees(await compactRequestBody(d.bytes, { stash, keepRecentImages: 3 }), d.messages, twin);
  const e = loop(shots.slice(0, 2));
  const rival = Buffer.concat([d.bytes.subarray(0, d.bytes.length - 1), Buffer.from(`,"messages":${JSON.stringify(e.messages)}}`)]);
  await agrees(await compactRequestBody(rival, { stash, keepRecentImages: 3 }), e.messages, twin);
});

test('two calls on one stash at once each get their own body\'s answer', async () => {
  const shots = await Promise.all(Array.from({ length: 5 }, (_, i) => shotOf(950 + i)));
  const [stash, twin] = [await memory(), await memory()];
  await compactRequestBody(loop(shots.slice(0, 3)).bytes, { stash, keepRecentImages: 3 });
  const [x, y] = [loop(shots.slice(0, 4)), loop(shots)];
  // Both compared with the same body kept; the second finds it taken by the first.
  const [ax, ay] = await Promise.all([x, y].map(({ bytes }) => compactRequestBody(bytes, { stash, keepRecentImages: 3 })));
  await agrees(ax, x.messages, twin);
  await agrees(ay, y.messages, twin);
});

test('bytes that are not UTF-8 are refused with INVALID_ARGUMENT at body, and the next body is read as usual', async () => {
  const shots = await Promise.all([shotOf(970), shotOf(971)]);
  const [stash, twin] = [await memory(), await memory()];
  const a = loop(shots.slice(0, 1));
  await compactRequestBody(a.bytes, { stash });
  for (const bad of [Buffer.from([0xff, 0x7b]), Buffer.concat([a.bytes.subarray(0, a.bytes.length - 2), Buffer.from([0xc3, 0x28, 0x5d, 0x7d])])]) {
    const e = await compactRequestBody(bad, { stash }).then(() => null, (e) => e);
    assert.ok(e instanceof CtxpackError, String(e));
    assert.equal(e.code, 'INVALID_ARGUMENT');
    assert.equal(e.path, 'body');
    assert.match(e.message, /not UTF-8 at byte \d+/);
  }
  const b = loop(shots);
  const answer = await compactRequestBody(b.bytes, { stash, keepRecentImages: 3 });
  const objects = await compactContext(b.messages, { stash: twin, keepRecentImages: 3 });
  assert.deepEqual(JSON.parse(Buffer.from(answer.body)).messages, JSON.parse(JSON.stringify(objects.messages)));
});

test('each stash keeps its own body: another stash reads the history again', async () => {
  const shots = await Promise.all([shotOf(980), shotOf(981), shotOf(982)]);
  const [a, b] = [await memory(), await memory()];
  const options = { keepRecentImages: 0, slack: false };
  const count = async (bytes, stash) => {
    const before = factsRead;
    await compactRequestBody(bytes, { stash, ...options });
    return factsRead - before;
  };
  const two = await count(loop(shots.slice(0, 2)).bytes, a);
  const three = await count(loop(shots).bytes, b);
  assert.ok(three > two && two > 0, `${two}, ${three}`);
  assert.equal(await count(loop(shots).bytes, a), three - two, 'stash a\'s body before serves it');
  assert.equal(await count(loop(shots).bytes, b), 0, 'and stash b\'s its own');
});

test('two conversations on one stash, and a short request between their turns: each turn reads only what is new in it', async () => {
  const shots = await Promise.all(Array.from({ length: 12 }, (_, i) => shotOf(990 + i)));
  const [stash, twin] = [await memory(), await memory()];
  const options = { keepRecentImages: 0, slack: false };
  const a = shots.slice(0, 6);
  const b = shots.slice(6);
  const reads = [];
  for (let n = 1; n <= 6; n++) {
    for (const [conversation, extra] of [[a, {}], [b, { system: 'Another agent.' }]]) {
      const { messages, bytes } = loop(conversation.slice(0, n), extra);
      const before = factsRead;
      const answer = await compactRequestBody(bytes, { stash, ...options });
      if (n > 1) reads.push(factsRead - before);
      const objects = await compactContext(messages, { stash: twin, ...options });
      assert.deepEqual(JSON.parse(Buffer.from(answer.body)).messages, JSON.parse(JSON.stringify(objects.messages)));
    }
    // A title request beside the loops, as agents send them.
    await compactRequestBody(Buffer.from(JSON.stringify({ model: 'claude-haiku-4-5', max_tokens: 32, messages: [{ role: 'user', content: `title ${n}` }] })), { stash });
  }
  // Each turn after the first: one screenshot left for the stash, its
  // facts read once; the rest were read on the turns before.
  const once = reads[0];
  assert.ok(once >= 1);
  assert.deepEqual(reads, reads.map(() => once), `reads a turn: ${reads.join(', ')}`);
});
