// The prompt cache over a session, on the bodies the SDKs send: with the
// default slack, a turn changes the request only at its end, and with
// `cacheBreakpoint` the one breakpoint sits at the end of what the next
// request keeps — in @anthropic-ai/sdk's body as `cache_control` on that
// message's last block, in @ai-sdk/anthropic's from the ModelMessage's
// `providerOptions` — so every next turn reads it from the cache. Each
// turn's `report.firstChangedIndex` is checked against the bodies alone: the
// first message where the body differs from the previous turn's.
import test from 'node:test';
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import Anthropic from '@anthropic-ai/sdk';
import { generateText, wrapLanguageModel } from 'ai';
import { createAnthropic } from '@ai-sdk/anthropic';
import { Stash, compactContext } from 'ctxpack';
import { ctxpackMiddleware } from 'ctxpack/ai-sdk';
import { makeScreenshot } from '../fixtures/make.mjs';
import { REPLIES, capturingFetch } from './support/wire.mjs';

const TURNS = 14;

/** One screenshot a turn, all different. */
const shots = await Promise.all(Array.from({ length: TURNS }, (_, i) => makeScreenshot(320, 200, i + 1).then((b) => b.toString('base64'))));

/** The request of turn `i`, in Anthropic's format: every turn so far, ending with its user message. */
function anthropicRequest(i) {
  const messages = [];
  for (let t = 0; t <= i; t++) {
    messages.push({ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: shots[t] } }, { type: 'text', text: `step ${t}: what now?` }] });
    if (t < i) messages.push({ role: 'assistant', content: `click button ${t}` });
  }
  return messages;
}

/** The same in the AI SDK's ModelMessages. */
function aiSdkRequest(i) {
  const messages = [];
  for (let t = 0; t <= i; t++) {
    messages.push({ role: 'user', content: [{ type: 'image', image: shots[t], mediaType: 'image/png' }, { type: 'text', text: `step ${t}: what now?` }] });
    if (t < i) messages.push({ role: 'assistant', content: [{ type: 'text', text: `click button ${t}` }] });
  }
  return messages;
}

/**
 * Messages as the API reads them, without their breakpoints (the cache
 * does not read them): a string content is shorthand for one text block.
 */
const unmarked = (messages) => JSON.parse(JSON.stringify(messages, (k, v) => (k === 'cache_control' ? undefined : v)))
  .map((m) => (typeof m.content === 'string' ? { ...m, content: [{ type: 'text', text: m.content }] } : m));

/**
 * Where a request moved from the previous one, read from the bodies the SDK
 * sent and nothing else: the first message of the previous body that the
 * next body does not hold as it was (breakpoints aside), or `null` when it
 * holds them all and only appends.
 */
function firstDifference(previous, next) {
  const [before, after] = [unmarked(previous.messages), unmarked(next.messages)];
  const at = before.findIndex((m, k) => !isDeepStrictEqual(m, after[k]));
  return at === -1 ? null : at;
}

/** Checks each turn's `firstChangedIndex` against the bodies sent: where each moved from the one before. */
function assertFirstChangedIsWhereTheBodiesDiffer(bodies, firstChanged) {
  assert.equal(firstChanged.length, bodies.length);
  assert.equal(firstChanged[0], null, 'turn 0: nothing stashed');
  for (let t = 1; t < bodies.length; t++) {
    assert.equal(firstChanged[t], firstDifference(bodies[t - 1], bodies[t]), `turn ${t}: firstChangedIndex is where the body first differs from the previous one`);
  }
}

/** Every path in `body` that holds a `cache_control`. */
function breakpoints(value, path = [], out = []) {
  if (Array.isArray(value)) value.forEach((v, i) => breakpoints(v, [...path, i], out));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === 'cache_control') out.push(path);
      breakpoints(v, [...path, k], out);
    }
  }
  return out;
}

/**
 * Checks a session's captured bodies: each holds one breakpoint, on the
 * last block of message `indexes[t]`, and the next body keeps every
 * message up to it as it was — or, when the next turn changes the first
 * message (a batch leaves from it), none (`firstChanged[t + 1]` is 0).
 */
function assertEveryTurnReadsTheCache(bodies, indexes, firstChanged) {
  for (let t = 0; t < bodies.length; t++) {
    const marks = breakpoints(bodies[t].messages);
    if (indexes[t] === null) {
      assert.equal(marks.length, 0, `turn ${t}: no breakpoint`);
      assert.equal(firstChanged[t + 1], 0, `turn ${t + 1} changes the first message`);
      continue;
    }
    assert.equal(marks.length, 1, `turn ${t}: one breakpoint`);
    const [message, key, block] = marks[0];
    assert.equal(message, indexes[t], `turn ${t}: at the message the report names`);
    assert.equal(key, 'content');
    assert.equal(block, bodies[t].messages[message].content.length - 1, `turn ${t}: on its last block`);
    assert.deepEqual(bodies[t].messages[message].content[block].cache_control, { type: 'ephemeral' });
    if (t + 1 < bodies.length) {
      const kept = unmarked(bodies[t].messages.slice(0, message + 1));
      assert.deepEqual(unmarked(bodies[t + 1].messages.slice(0, message + 1)), kept, `turn ${t + 1} keeps the cached prefix`);
    }
  }
}

test('@anthropic-ai/sdk: with the default slack and cacheBreakpoint, every turn reads the previous turn\'s cache', async () => {
  const { fetch, bodies } = capturingFetch([REPLIES.anthropic.text('ok')]);
  const client = new Anthropic({ apiKey: 'test', maxRetries: 0, fetch });
  const stash = await Stash.open({ backend: 'memory' });
  const indexes = [];
  const firstChanged = [];
  let moved = 0;
  let previous = null;
  for (let i = 0; i < TURNS; i++) {
    const { messages, report } = await compactContext(anthropicRequest(i), { stash, keepRecentImages: 2, slack: { images: 4 }, cacheBreakpoint: true });
    indexes.push(report.cacheBreakpointIndex);
    firstChanged.push(report.firstChangedIndex);
    await client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 8, messages });
    // The turns that change a message the previous request held before its newest turn.
    if (previous && report.firstChangedIndex !== null && report.firstChangedIndex < previous.newestUserIndex) moved++;
    previous = report;
  }
  assertEveryTurnReadsTheCache(bodies, indexes, firstChanged);
  assertFirstChangedIsWhereTheBodiesDiffer(bodies, firstChanged);
  // The window of 2 (+3 of slack) drops 4 images at once: 13 turns, 3 moves.
  assert.ok(moved <= Math.ceil((TURNS - 1) / 4) + 1, `${moved} turns moved the prefix`);
  assert.ok(indexes.some((i) => i < bodies.at(-1).messages.length - 1), 'before a batch drops, the breakpoint stops short of the end');
});

test('@anthropic-ai/sdk: without cacheBreakpoint nothing is marked, and slack: false moves the prefix every turn', async () => {
  const { fetch, bodies } = capturingFetch([REPLIES.anthropic.text('ok')]);
  const client = new Anthropic({ apiKey: 'test', maxRetries: 0, fetch });
  const stash = await Stash.open({ backend: 'memory' });
  const firstChanged = [];
  let moved = 0;
  let previous = null;
  for (let i = 0; i < TURNS; i++) {
    const { messages, report } = await compactContext(anthropicRequest(i), { stash, keepRecentImages: 2, slack: false });
    assert.equal(report.cacheBreakpointIndex, null);
    firstChanged.push(report.firstChangedIndex);
    await client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 8, messages });
    if (previous && report.firstChangedIndex !== null && report.firstChangedIndex < previous.newestUserIndex) moved++;
    previous = report;
  }
  assert.equal(bodies.flatMap((b) => breakpoints(b.messages)).length, 0);
  assertFirstChangedIsWhereTheBodiesDiffer(bodies, firstChanged);
  // From the fourth turn on, each turn stashes the image two turns back.
  assert.equal(moved, TURNS - 3);
});

test('@ai-sdk/anthropic: the breakpoint rides in providerOptions and reaches the body', async () => {
  const { fetch, bodies } = capturingFetch([REPLIES.anthropic.text('ok')]);
  const model = createAnthropic({ apiKey: 'test', fetch })('claude-sonnet-4-5');
  const stash = await Stash.open({ backend: 'memory' });
  const indexes = [];
  const firstChanged = [];
  for (let i = 0; i < TURNS; i++) {
    const { messages, report } = await compactContext(aiSdkRequest(i), { stash, keepRecentImages: 2, slack: { images: 4 }, cacheBreakpoint: true });
    assert.equal(report.format, 'ai-sdk');
    indexes.push(report.cacheBreakpointIndex);
    firstChanged.push(report.firstChangedIndex);
    const marked = messages.filter((m) => m.providerOptions);
    assert.equal(marked.length, report.cacheBreakpointIndex === null ? 0 : 1);
    if (marked.length) assert.deepEqual(messages[report.cacheBreakpointIndex].providerOptions, { anthropic: { cacheControl: { type: 'ephemeral' } } });
    await generateText({ model, messages });
  }
  assertEveryTurnReadsTheCache(bodies, indexes, firstChanged);
  assertFirstChangedIsWhereTheBodiesDiffer(bodies, firstChanged);
});

test('ctxpackMiddleware passes cacheBreakpoint on: the prompt @ai-sdk/anthropic sends holds one breakpoint', async () => {
  const { fetch, bodies } = capturingFetch([REPLIES.anthropic.text('ok')]);
  const stash = await Stash.open({ backend: 'memory' });
  const model = wrapLanguageModel({ model: createAnthropic({ apiKey: 'test', fetch })('claude-sonnet-4-5'), middleware: ctxpackMiddleware({ stash, keepRecentImages: 1, cacheBreakpoint: true }) });
  await generateText({ model, messages: aiSdkRequest(3) });
  const marks = breakpoints(bodies[0].messages);
  assert.equal(marks.length, 1);
  // Nothing leaves next turn (2 history images inline ≤ 1 + 7): the whole request is the prefix.
  assert.equal(marks[0][0], bodies[0].messages.length - 1);
});

test('a request that holds four breakpoints gets none more, and formats that cache by themselves none', async () => {
  const stash = await Stash.open({ backend: 'memory' });
  const marked = (t) => ({ role: 'user', content: [{ type: 'text', text: t, cache_control: { type: 'ephemeral' } }] });
  const four = [marked('a'), { role: 'assistant', content: 'b' }, marked('c'), { role: 'assistant', content: 'd' }, marked('e'), { role: 'assistant', content: 'f' }, marked('g'), { role: 'assistant', content: 'h' }, { role: 'user', content: 'i' }];
  const { messages, report } = await compactContext(four, { stash, format: 'anthropic', cacheBreakpoint: true });
  assert.equal(report.cacheBreakpointIndex, null);
  assert.deepEqual(messages, four);
  const openai = [{ role: 'user', content: 'hello' }];
  const r = await compactContext(openai, { stash, cacheBreakpoint: true });
  assert.equal(r.report.format, 'openai');
  assert.equal(r.report.cacheBreakpointIndex, null);
  assert.deepEqual(r.messages, openai);
});
