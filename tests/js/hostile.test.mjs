// Hostile input and failing storage, against the built Node package: every
// case gets a CtxpackError with code and path, or a documented pass-through —
// never a crash — and nothing is ever lost.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import vm from 'node:vm';
import {
  Stash, compactContext, expandContext, getHistoryImage, toTextOnly, hasMultimedia, estimate, detectFormat,
  sanitizeToolResult, toMultimodal, parseMarkdownImages, parseContextLengthError, CtxpackError,
} from 'ctxpack';
import { makeImage } from '../fixtures/make.mjs';

const md5 = (s) => createHash('md5').update(s).digest('hex');
const memory = () => Stash.open({ backend: 'memory' });
const gif = 'R0lGODlhAQABAIAAAP///wAAACwAAAAAAQABAAACAkQBADs=';
const img = (b64 = gif, mime = 'image/gif') => ({ type: 'image_url', image_url: { url: `data:${mime};base64,${b64}` } });

function expectError(fn, code, path) {
  return assert.rejects(async () => fn(), (e) => {
    assert.ok(e instanceof CtxpackError, `a CtxpackError, got ${e?.constructor?.name}: ${e?.message}`);
    assert.equal(e.code, code);
    if (path !== undefined) assert.equal(e.path, path);
    return true;
  });
}

test('wrong shapes in every format are INVALID_MESSAGE with the path', async () => {
  const stash = await memory();
  const cases = [
    ['openai', [null], 'messages[0]'],
    ['openai', [42], 'messages[0]'],
    ['openai', [{ role: 5, content: 'x' }], 'messages[0].role'],
    ['openai', [{ role: 'user', content: 7 }], 'messages[0].content'],
    ['openai', [{ role: 'user', content: [undefined] }], 'messages[0].content[0]'],
    ['openai', [{ role: 'user', content: [{ type: 'image_url', image_url: null }] }], 'messages[0].content[0].image_url'],
    ['langchain', [['human']], 'messages[0]'],
    ['langchain', [[5, 'x']], 'messages[0][0]'],
    ['anthropic', [{ role: 'user', content: [{ type: 'image', source: 'nope' }] }], 'messages[0].content[0].source'],
    ['anthropic', [{ role: 'user', content: [{ type: 'text', text: 12 }] }], 'messages[0].content[0].text'],
    ['ai-sdk', [{ role: 'user', content: [{ type: 'image' }] }], 'messages[0].content[0].image'],
    ['ai-sdk', [{ role: 'user', content: [{ type: 'file', mediaType: 'image/png' }] }], 'messages[0].content[0].data'],
  ];
  for (const [format, messages, path] of cases) {
    await expectError(() => compactContext(messages, { stash, format }), 'INVALID_MESSAGE', path);
    await expectError(() => expandContext(messages, { stash, format }), 'INVALID_MESSAGE', path);
    await expectError(() => toTextOnly(messages, { format }), 'INVALID_MESSAGE', path);
    await expectError(() => hasMultimedia(messages, { format }), 'INVALID_MESSAGE', path);
    await expectError(() => estimate(messages, { provider: 'openai', format }), 'INVALID_MESSAGE', path);
    await expectError(() => detectFormat(messages, { format }), 'INVALID_MESSAGE', path);
  }
  await expectError(() => compactContext(null, { stash }), 'INVALID_ARGUMENT', 'messages');
  await expectError(() => compactContext([], null), 'INVALID_OPTION', 'options.stash');
  await expectError(() => compactContext([], { stash, keepRecentImages: -1 }), 'INVALID_OPTION', 'options.keepRecentImages');
  await expectError(() => compactContext([], { stash, keepRecentImages: 1.5 }), 'INVALID_OPTION', 'options.keepRecentImages');
  await expectError(() => toMultimodal(undefined), 'INVALID_ARGUMENT', 'text');
  // Counts beyond 2^53 come back as numbers, not as an error.
  const huge = parseContextLengthError('maximum context length is 9007199254740993 tokens. However, you requested 18446744073709551615 tokens');
  assert.deepEqual(huge, { requested: 18446744073709551615, max: 9007199254740992, provider: 'openai' });
  assert.equal(estimate([], { provider: 'openai', limits: { maxRequestBytes: 1e300 } }).limits.maxRequestBytes, 18446744073709551615);
  // Nested options name the bad value's path.
  await expectError(() => sanitizeToolResult({}, { thresholdBytes: 'big' }), 'INVALID_OPTION', 'options.thresholdBytes');
  await expectError(() => sanitizeToolResult({}, { thresholdBytes: -1 }), 'INVALID_OPTION', 'options.thresholdBytes');
  await expectError(() => sanitizeToolResult({}, { fields: ['a', 2] }), 'INVALID_OPTION', 'options.fields[1]');
  await expectError(() => sanitizeToolResult({}, { fields: 'a' }), 'INVALID_OPTION', 'options.fields');
  await expectError(() => estimate([], { provider: 'openai', limits: { maxImages: 'many' } }), 'INVALID_OPTION', 'options.limits.maxImages');
  await expectError(() => estimate([], { provider: 'openai', limits: 5 }), 'INVALID_OPTION', 'options.limits');
  await expectError(() => parseMarkdownImages({}), 'INVALID_ARGUMENT', 'text');
});

test('broken data URLs in history stay inline with a reason; lying types are corrected in the stash', async () => {
  const stash = await memory();
  const png = (await makeImage('png', 8, 8, 3)).toString('base64');
  const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>').toString('base64');
  const messages = [
    { role: 'user', content: [
      img('iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB', 'image/png').image_url.url.slice(0, -3) && { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAA' } },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,<html>not base64</html>' } },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBO=Rw0' } },
      img(png, 'image/jpeg'),
      img(svg, 'image/svg+xml'),
      { type: 'image_url', image_url: { url: 'data:image/png,rawbytes' } },
    ] },
    { role: 'user', content: 'next' },
  ];
  const { messages: out, report } = await compactContext(messages, { stash });
  assert.equal(report.failed, 3);
  assert.deepEqual(report.failures.map((f) => [f.path, f.code]), [
    ['messages[0].content[0]', 'INVALID_DATA_URL'],
    ['messages[0].content[1]', 'INVALID_DATA_URL'],
    ['messages[0].content[2]', 'INVALID_DATA_URL'],
  ]);
  assert.deepEqual(out[0].content.slice(0, 3), messages[0].content.slice(0, 3));
  assert.deepEqual(out[0].content[5], messages[0].content[5], 'a non-base64 data URL passes through');
  const entries = await stash.list();
  assert.equal(entries.find((e) => e.id === md5(png)).mime, 'image/png', 'the declared JPEG was a PNG');
  // The SVG is stored as data and comes back byte-identical.
  const [svgPart] = await getHistoryImage(stash, md5(svg));
  assert.equal(svgPart.image_url.url, `data:image/svg+xml;base64,${svg}`);
  const { messages: back } = await expandContext(out, { stash });
  assert.deepEqual(back, messages);
});

test('long payloads (checked by Node natively) are refused when any character is not standard base64', async () => {
  const stash = await memory();
  const png = (await makeImage('png', 64, 64, 5)).toString('base64');
  assert.ok(png.length > 2048, 'long enough to stay a JavaScript string');
  const at = (s, i, c) => s.slice(0, i) + c + s.slice(i + 1);
  const mid = 1200;
  const bad = [
    at(png, mid, '*'),
    at(png, mid, '-'),
    at(png, mid, '_'),
    at(png, mid, ' '),
    at(png, mid, '\n'),
    at(png, mid, '='),
    at(png, mid, '\u0100'),
    at(png, mid, 'é'),
    png.slice(0, -1),
    `${png.slice(0, -4)}A===`,
    // Bits set after the last byte: Node's decoder ignores them.
    `${png.slice(0, -4)}QR==`,
    `${png.slice(0, -4)}Zm9=`,
  ];
  const messages = [
    { role: 'user', content: [...bad.map((b) => img(b, 'image/png')), img(png, 'image/png')] },
    { role: 'user', content: 'next' },
  ];
  const { messages: out, report } = await compactContext(messages, { stash });
  assert.deepEqual(report.failures.map((f) => [f.path, f.code]),
    bad.map((_, i) => [`messages[0].content[${i}]`, 'INVALID_DATA_URL']));
  assert.deepEqual(out[0].content.slice(0, bad.length), messages[0].content.slice(0, bad.length));
  assert.equal(out[0].content[bad.length].text, `[Picture:history_${md5(png)}]`, 'the valid one is stashed');
});

test('huge strings, many images and deep nesting get clean answers', async () => {
  const stash = await memory();
  const huge = 'x'.repeat(50 * 1024 * 1024);
  const big = [{ role: 'user', content: [{ type: 'text', text: huge }, img()] }, { role: 'user', content: 'next' }];
  const { messages: out } = await compactContext(big, { stash });
  assert.equal(out[0].content[0].text.length, huge.length);
  assert.match(out[0].content[1].text, /^\[Picture:history_/);

  const many = [{ role: 'user', content: Array.from({ length: 10000 }, () => img()) }, { role: 'user', content: 'next' }];
  const { messages: m2, report } = await compactContext(many, { stash });
  assert.equal(report.stashed, 10000);
  // The first compaction above stashed this image: it is confirmed, not written again.
  assert.equal(report.written, 0);
  assert.equal(m2[0].content.length, 10000);

  let deep = { role: 'user', content: 'leaf' };
  for (let i = 0; i < 10000; i++) deep = { role: 'user', content: [{ type: 'text', text: 'x', nested: deep }] };
  await expectError(() => compactContext([deep], { stash }), 'INVALID_MESSAGE');
  let deepResult = { leaf: true };
  for (let i = 0; i < 10000; i++) deepResult = { next: deepResult };
  await expectError(() => sanitizeToolResult(deepResult), 'INVALID_MESSAGE', undefined);
  const deepText = '['.repeat(10000) + ']'.repeat(10000);
  assert.equal(await sanitizeToolResult(deepText), deepText, 'JSON text too deep to parse passes through');
});

test('a message nested past 256 levels is INVALID_MESSAGE at the path of the level too deep', async () => {
  let extra = 'leaf';
  for (let i = 0; i < 300; i++) extra = i % 2 ? { 'a b': extra } : [extra];
  const message = { role: 'user', content: [{ type: 'text', text: 'hi', extra }] };
  // The message is level 0: the first value past level 256 is where reading stops.
  let path = 'messages[0].content[0].extra';
  let value = extra;
  for (let depth = 3; depth < 257; depth++) {
    if (Array.isArray(value)) {
      path += '[0]';
      value = value[0];
    } else {
      path += '["a b"]';
      value = value['a b'];
    }
  }
  await expectError(async () => compactContext([message, { role: 'user', content: 'next' }], { stash: await memory() }), 'INVALID_MESSAGE', path);
});

test('lone surrogates, __proto__ and constructor keys pass through without harm', async () => {
  const stash = await memory();
  const evil = JSON.parse('{"role":"user","content":[{"type":"text","text":"x"}],"__proto__":{"polluted":true},"constructor":{"prototype":{"bad":1}}}');
  evil.content.push(img());
  const lone = { role: 'user', content: [{ type: 'text', text: 'broken \uD800 surrogate' }, img()] };
  const { messages: out } = await compactContext([evil, lone, { role: 'user', content: 'next' }], { stash });
  assert.equal(Object.getPrototypeOf(out[0]), Object.prototype);
  assert.ok(Object.prototype.hasOwnProperty.call(out[0], '__proto__'));
  assert.deepEqual(out[0].__proto__, { polluted: true });
  assert.equal(({}).polluted, undefined);
  assert.equal(({}).bad, undefined);
  assert.equal(out[1].content[0].text, 'broken \uD800 surrogate', 'the lone surrogate is kept exactly');
  const { messages: back } = await expandContext(out, { stash });
  assert.equal(back[1].content[0].text, 'broken \uD800 surrogate');
});

test('caller strings are checked for lone surrogates by the engine\'s String.prototype.isWellFormed, not one code unit at a time', async () => {
  const real = String.prototype.isWellFormed;
  let checked = 0;
  String.prototype.isWellFormed = function () {
    checked++;
    return real.call(this);
  };
  try {
    const lone = { role: 'user', content: [{ type: 'text', text: 'broken \uD800 surrogate' }, { type: 'text', text: 'whole' }] };
    const { messages: out } = await compactContext([lone, { role: 'user', content: 'next' }], { stash: await memory() });
    assert.ok(checked >= 3, `isWellFormed called ${checked} times`);
    assert.equal(out[0].content[0].text, 'broken \uD800 surrogate');
    assert.equal(out[0].content[1].text, 'whole');
  } finally {
    String.prototype.isWellFormed = real;
  }
});

test('a typed placeholder for an image never sent is answered as not found', async () => {
  const stash = await memory();
  const fake = 'f'.repeat(32);
  const messages = [{ role: 'user', content: `look at [Picture:history_${fake}]` }, { role: 'user', content: 'well?' }];
  const { messages: out, report } = await compactContext(messages, { stash });
  assert.deepEqual(out, messages);
  assert.equal(report.missing, 1);
  const { report: r2 } = await expandContext(out, { stash });
  assert.deepEqual(r2.missing, [{ id: fake, path: 'messages[0].content' }]);
  assert.deepEqual(await getHistoryImage(stash, fake), [{ type: 'text', text: 'Image not found or expired' }]);
  for (const id of [null, 42, {}, '../../etc/passwd', 'history_' + 'g'.repeat(32)]) {
    assert.deepEqual(await getHistoryImage(stash, id), [{ type: 'text', text: 'Invalid image id' }]);
  }
});

/** An adapter whose writes fail after `okPuts` successful ones, and whose reads can lie. */
function faultyAdapter({ okPuts = Infinity, corrupt = false, throwOnGet = false } = {}) {
  const map = new Map();
  let puts = 0;
  return {
    map,
    throwOnGet,
    async get(k) {
      if (this.throwOnGet) throw new Error('disk read error');
      const v = map.get(k);
      return corrupt && v && v.data ? { ...v, data: gif } : v;
    },
    async put(k, v) {
      if (puts++ >= okPuts) throw new DOMException('transaction was aborted', 'AbortError');
      map.set(k, v);
    },
    async delete(k) { map.delete(k); },
    async keys() { return [...map.keys()]; },
  };
}

test('storage that fails part-way: only committed images are replaced, and expand never lies', async () => {
  const images = await Promise.all([1, 2, 3, 4].map((s) => makeImage('png', 6, 6, 80 + s).then((b) => b.toString('base64'))));
  const messages = [...images.map((b) => ({ role: 'user', content: [img(b, 'image/png')] })), { role: 'user', content: 'next' }];
  const adapter = faultyAdapter({ okPuts: 3 }); // image 1 (2 puts) ok, image 2 half-written, 3-4 fail
  const stash = await Stash.open({ backend: adapter });
  const { messages: out, report } = await compactContext(messages, { stash });
  assert.equal(report.stashed, 1);
  assert.equal(report.failed, 3);
  assert.deepEqual(report.failures.map((f) => f.code), ['TRANSACTION_ABORTED', 'TRANSACTION_ABORTED', 'TRANSACTION_ABORTED']);
  assert.deepEqual(out.slice(1), messages.slice(1), 'failed images stay inline');
  const { messages: back } = await expandContext(out, { stash });
  assert.deepEqual(back, messages, 'nothing lost');

  // Corrupted reads and failing reads: reported missing, never a wrong image.
  const corrupt = await Stash.open({ backend: faultyAdapter({ corrupt: true }) });
  const { messages: c1 } = await compactContext(messages, { stash: corrupt });
  const { messages: c2, report: cr } = await expandContext(c1, { stash: corrupt });
  assert.deepEqual(c2, c1);
  assert.equal(cr.corrupted, 4);
  const failingRead = faultyAdapter();
  const fr = await Stash.open({ backend: failingRead });
  const { messages: f1 } = await compactContext(messages, { stash: fr });
  failingRead.throwOnGet = true;
  const { messages: f2, report: frr } = await expandContext(f1, { stash: fr });
  assert.deepEqual(f2, f1);
  assert.equal(frr.missing.length, 4);
});

test('what JSON leaves out is left out of a rebuilt message, whatever realm made it; plain objects of another realm are read; instances are kept as they are', async () => {
  const stash = await memory();
  // Another realm's values, as an iframe or a vm context hands them over.
  const other = vm.runInNewContext('({ fn: function f() {}, part: { type: "text", text: "from another realm" } })');
  assert.ok(!(other.fn instanceof Function));
  const when = new Date(0);
  const first = { type: 'text', text: 'see', onClick: () => 1, handler: other.fn, sym: Symbol('s'), gone: undefined, when };
  const messages = [{ role: 'user', content: [first, other.part, img()] }, { role: 'user', content: 'and now?' }];
  const { messages: out, report } = await compactContext(messages, { stash });
  assert.equal(report.stashed, 1);
  const [text, foreign, placeholder] = out[0].content;
  assert.deepEqual(Object.keys(text), ['type', 'text', 'when']);
  assert.equal(text.when, when, 'an instance is the caller\'s own object');
  assert.deepEqual({ ...foreign }, { type: 'text', text: 'from another realm' });
  assert.equal(placeholder.text, `[Picture:history_${md5(gif)}]`);
});
