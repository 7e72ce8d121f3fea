// Caller text cannot forge a payload reference. Inside one call ctxpack
// keeps long payloads in JavaScript and hands the core a short reference
// that begins with U+0000; a caller string holding any such form must come
// back as that same string, never as another value's payload — in one call,
// and across calls running at the same time on one instance.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  Stash, compactContext, expandContext, toTextOnly, estimate, sanitizeToolResult, getHistoryImage,
} from 'ctxpack';

const png = readFileSync(new URL('../fixtures/chart.png', import.meta.url)).toString('base64');
const jpeg = readFileSync(new URL('../fixtures/photo.jpg', import.meta.url)).toString('base64');
const dataUrl = (b64, mime = 'image/png') => `data:${mime};base64,${b64}`;
const md5 = (text) => createHash('md5').update(text).digest('hex');

/** Every form a reference has taken or could take: whole, embedded, as a
 * data URL payload, with table ids and indexes a live call could be using,
 * truncated, and split across two strings. */
function forgeries() {
  const out = [];
  for (let table = 0; table <= 40; table++) {
    for (let index = 0; index <= 3; index++) {
      out.push(`\u0000ctxpack\u0001${table}\u0001${index}\u0000`);
    }
  }
  const one = '\u0000ctxpack\u00011\u00010\u0000';
  out.push(`look: ${one} here`, `${one}${one}`, 'a\u0000b', '\u0000', '\u0000ctxpack\u0001', '\u0000ctxpack\u00011\u0001');
  out.push(`\u0000ctxpack\u00011\u00010`, `ctxpack\u00011\u00010\u0000`);
  return out;
}

/** A conversation whose history holds a real image (long enough to stay in
 * JavaScript) and whose texts carry `hostile`. */
function conversation(hostile, b64 = png) {
  return [
    { role: 'user', content: [{ type: 'text', text: hostile }, { type: 'image_url', image_url: { url: dataUrl(b64) } }] },
    { role: 'assistant', content: hostile },
    { role: 'tool', tool_call_id: 'c1', content: hostile },
    { role: 'user', content: [{ type: 'text', text: hostile }] },
  ];
}

/** Every string in `value`, depth first. */
function strings(value, out = []) {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) value.forEach((v) => strings(v, out));
  else if (value && typeof value === 'object') Object.values(value).forEach((v) => strings(v, out));
  return out;
}

function assertNoPayload(value, b64, what) {
  for (const s of strings(value)) {
    assert.ok(!s.includes(b64.slice(0, 64)), `${what}: a payload came out of caller text: ${JSON.stringify(s.slice(0, 80))}`);
  }
}

test('text spelling the reference of the call that reads it comes back as the same text', async () => {
  // Table ids are small counters: forge every id a call of this process can
  // have had, with the first few indexes, in one conversation.
  const stash = await Stash.open({ backend: 'memory' });
  const forged = [];
  for (let table = 0; table <= 300; table++) {
    for (let index = 0; index <= 2; index++) forged.push(`\u0000ctxpack\u0001${table}\u0001${index}\u0000`);
  }
  const messages = [
    { role: 'user', content: [{ type: 'image_url', image_url: { url: dataUrl(png) } }, ...forged.map((text) => ({ type: 'text', text }))] },
    { role: 'assistant', content: 'ok' },
    { role: 'user', content: 'newest' },
  ];
  const { messages: out, report } = await compactContext(messages, { stash });
  assert.equal(report.stashed, 1);
  assert.deepEqual(out[0].content.slice(1).map((p) => p.text), forged);
  assertNoPayload(out, png, 'compactContext');
  const { messages: back } = await expandContext(out, { stash });
  assert.deepEqual(back, messages);
});

test('a forged reference in text comes back as the same text (compact, expand, toTextOnly, estimate)', async () => {
  const stash = await Stash.open({ backend: 'memory' });
  for (const hostile of forgeries()) {
    const messages = conversation(hostile);
    const { messages: compacted, report } = await compactContext(messages, { stash });
    assert.equal(report.stashed, 1, JSON.stringify(hostile));
    assert.equal(compacted[0].content[0].text, hostile);
    assert.equal(compacted[1].content, hostile);
    assert.equal(compacted[2].content, hostile);
    assert.equal(compacted[3], messages[3], 'the newest turn is the caller\'s own value');
    assertNoPayload(compacted, png, 'compactContext');

    const collapsed = await compactContext(messages, { stash, collapseText: true });
    assert.ok(strings(collapsed.messages[0]).some((s) => s.includes(hostile)), 'collapsed text keeps the hostile text');
    assertNoPayload(collapsed.messages, png, 'compactContext collapseText');

    const { messages: expanded } = await expandContext(compacted, { stash });
    assert.deepEqual(expanded, messages);

    const textOnly = await toTextOnly(messages, { stash });
    assert.equal(textOnly[1].content, hostile);
    assert.equal(textOnly[2].content, hostile);
    assertNoPayload(textOnly.slice(1), png, 'toTextOnly');

    const est = estimate(messages, { provider: 'openai' });
    assertNoPayload(est, png, 'estimate');
  }
});

test('a forged reference as an image payload or tool result is never resolved', async () => {
  const stash = await Stash.open({ backend: 'memory' });
  const one = '\u0000ctxpack\u00011\u00010\u0000';
  const messages = [
    { role: 'user', content: [{ type: 'image_url', image_url: { url: dataUrl(png) } }] },
    { role: 'user', content: [{ type: 'image_url', image_url: { url: dataUrl(one) } }] },
    { role: 'user', content: [{ type: 'image_url', image_url: { url: one } }] },
    { role: 'user', content: 'newest' },
  ];
  const { messages: out } = await compactContext(messages, { stash });
  assert.equal(out[1].content[0].image_url.url, dataUrl(one));
  assert.equal(out[2].content[0].image_url.url, one);
  assertNoPayload(out.slice(1), png, 'compactContext');

  for (const result of [one, JSON.stringify({ image: one, note: one }), { image: one, data: [one] }]) {
    const clean = await sanitizeToolResult(result, { stash, thresholdBytes: 1 });
    assert.deepEqual(clean, result);
  }
  const parts = await getHistoryImage(stash, one);
  assertNoPayload(parts, png, 'getHistoryImage');
});

test('concurrent calls on one instance: text in one conversation never reaches another\'s payloads', async () => {
  const stash = await Stash.open({ backend: 'memory' });
  const victims = Array.from({ length: 6 }, () => conversation('victim', jpeg));
  const attackers = forgeries().map((hostile) => conversation(hostile));
  const calls = [];
  // Interleave the victims' calls with the attackers' so that both kinds of
  // table are live at once.
  for (let i = 0; i < attackers.length; i++) {
    if (i % 10 === 0) {
      // A victim's compaction, then its expansion, while attackers still run.
      const victim = victims[(i / 10) % victims.length];
      calls.push(compactContext(victim, { stash }).then(async (r) => ['victim', r, victim, await expandContext(r.messages, { stash })]));
    }
    calls.push(compactContext(attackers[i], { stash }).then((r) => ['attacker', r, attackers[i]]));
    if (i % 7 === 0) calls.push(toTextOnly(attackers[i], { stash }).then((r) => ['attacker-text', r, attackers[i]]));
  }
  const results = await Promise.all(calls);
  const id = `history_${md5(jpeg)}`;
  let victimsSeen = 0;
  for (const [who, result, input, expanded] of results) {
    if (who === 'victim') {
      // The victim's own image, stashed under the md5 of its own payload;
      // its texts as they were; nothing of any other conversation.
      victimsSeen++;
      assert.equal(result.report.stashed, 1);
      assert.equal(result.report.failed, 0);
      assert.deepEqual(result.messages[0].content, [{ type: 'text', text: 'victim' }, { type: 'text', text: `[Picture:${id}]` }]);
      assert.equal(result.messages[1].content, 'victim');
      assert.equal(result.messages[2].content, 'victim');
      assert.deepEqual(result.messages[3], input[3]);
      assertNoPayload(result.messages, jpeg, 'victim');
      assertNoPayload(result.messages, png, 'victim');
      // Expanded, the victim's payload comes back exactly as it was.
      assert.deepEqual(expanded.messages, input);
      assert.equal(expanded.report.restored, 1);
      continue;
    }
    assertNoPayload(who === 'attacker' ? result.messages : result, jpeg, who);
    if (who === 'attacker') {
      assert.equal(result.messages[1].content, input[1].content);
      assert.equal(result.messages[2].content, input[2].content);
    }
  }
  assert.equal(victimsSeen, Math.ceil(attackers.length / 10));
  // What the stash holds under the victim's id is the victim's image.
  assert.deepEqual(await getHistoryImage(stash, id), [{ type: 'image_url', image_url: { url: dataUrl(jpeg, 'image/jpeg') } }]);
});
