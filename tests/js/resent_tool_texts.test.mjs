// A tool result's JSON text sent again, as an agent that keeps its
// original messages sends it before every request under sanitizeToolResults:
// the very same string is not copied into wasm, parsed or hashed again
// while the stash confirms the records its markers name, and everything
// reads exactly as the first send gave it — whatever happened to the
// strings, the stashes and the clock in between.
import test from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { makeNoisePng } from '../fixtures/make.mjs';

// Every copy of caller text into wasm counted: the library's own
// encodeInto copies and the glue's generic passStringToWasm0 ones.
import { copiedBy, countedAdapter, countedPackage } from './support/counted_package.mjs';

const { Stash, compactContext, getHistoryImage } = countedPackage();

const md5 = (s) => crypto.hash('md5', s);
const screenshot = async (seed) => (await makeNoisePng(160, 120, seed)).toString('base64');
/** A tool's JSON result holding a screenshot, with text JSON escapes. */
const toolText = (b64, caption = 'the "settings" page\n\tafter the click') => JSON.stringify({ success: true, caption, imageBase64: b64 });

const openai = (text) => [
  { role: 'user', content: 'take a screenshot' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'screenshot', arguments: '{}' } }] },
  { role: 'tool', tool_call_id: 'c1', content: text },
  { role: 'assistant', content: 'done' },
  { role: 'user', content: 'and now?' },
];
const anthropic = (text) => [
  { role: 'user', content: 'take a screenshot' },
  { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'screenshot', input: {} }] },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: text }] },
  { role: 'assistant', content: 'done' },
  { role: 'user', content: 'and now?' },
];

/** The sum of each message's JSON length in UTF-8: what bytesBefore and bytesAfter count. */
const jsonBytes = (messages) => messages.reduce((n, m) => n + Buffer.byteLength(JSON.stringify(m)), 0);

/**
 * What `fn` resolves to, and how many times `text` was copied into wasm
 * meanwhile: the text units copied, in whole texts (all else a call copies,
 * the other messages' short strings, is far shorter than one).
 */
async function copiesOf(text, fn) {
  const { value, copied } = await copiedBy(fn);
  return { value, copies: Math.floor(copied / text.length) };
}

/** Compacts `history` and counts the copies of `text` into wasm. */
async function compact(history, options, text) {
  const { value, copies } = await copiesOf(text, () => compactContext(history, { sanitizeToolResults: true, ...options }));
  return { ...value, copies };
}

const markerId = (content) => JSON.parse(content).imageBase64.match(/^\[Binary:history_([0-9a-f]{32}) image\/png /)?.[1];

test('the same JSON text sent again is not copied in, and reads exactly as the first send', async () => {
  const b64 = await screenshot(701);
  const text = toolText(b64);
  const stash = await Stash.open({ backend: 'memory' });
  const first = await compact(openai(text), { stash }, text);
  assert.equal(first.copies, 1);
  assert.equal(first.report.binariesStashed, 1);
  assert.equal(markerId(first.messages[2].content), md5(b64));
  const again = await compact(openai(text), { stash }, text);
  assert.equal(again.copies, 0);
  assert.deepEqual(again.messages, first.messages);
  assert.deepEqual(again.report, first.report);
  // The sizes count the text with its JSON escapes, as JSON.stringify writes it.
  assert.equal(first.report.bytesBefore, jsonBytes(openai(text)));
  assert.equal(again.report.bytesBefore, jsonBytes(openai(text)));
  assert.equal(again.report.bytesAfter, jsonBytes(again.messages));
  // The record is there: the tool gives the screenshot back.
  const [part] = await getHistoryImage(stash, md5(b64));
  assert.equal(part.image_url.url, `data:image/png;base64,${b64}`);
  stash.free();
});

test('a new string in the same message, the same string in another format, another stash', async () => {
  const [a, b] = [await screenshot(702), await screenshot(703)];
  const text = toolText(a);
  const stash = await Stash.open({ backend: 'memory' });
  const history = openai(text);
  const first = await compact(history, { stash }, text);
  // The same message object with a new string (one letter of the caption
  // changed, and another screenshot): read, its own id.
  const changed = toolText(b, 'the "settings" page\n\tafter the clicks');
  history[2].content = changed;
  const other = await compact(history, { stash }, changed);
  assert.equal(other.copies, 1);
  assert.equal(markerId(other.messages[2].content), md5(b));
  // The first string in an Anthropic tool_result: the same sanitized text.
  const inAnthropic = await compact(anthropic(text), { stash }, text);
  assert.equal(inAnthropic.copies, 0);
  assert.equal(inAnthropic.report.format, 'anthropic');
  assert.equal(inAnthropic.messages[2].content[0].content, first.messages[2].content);
  // Another stash holds none of its records: read and written there.
  const second = await Stash.open({ backend: 'memory' });
  const there = await compact(openai(text), { stash: second }, text);
  assert.equal(there.copies, 1);
  assert.deepEqual(there.messages, first.messages);
  assert.deepEqual((await second.list()).map((e) => e.id), [md5(a)]);
  stash.free();
  second.free();
});

test('a stash cleared or a record expired under the memo: read and written again', async () => {
  const b64 = await screenshot(704);
  const text = toolText(b64);
  let now = Date.UTC(2026, 0, 1);
  const stash = await Stash.open({ backend: 'memory', ttlSeconds: 3600, now: () => now });
  const first = await compact(openai(text), { stash }, text);
  await stash.clear();
  const cleared = await compact(openai(text), { stash }, text);
  assert.equal(cleared.copies, 1);
  assert.deepEqual(cleared.messages, first.messages);
  assert.deepEqual((await stash.list()).map((e) => e.id), [md5(b64)]);
  // Half the TTL later: confirmed, and its expiry renewed.
  now += 1800 * 1000;
  const renewed = await compact(openai(text), { stash }, text);
  assert.equal(renewed.copies, 0);
  assert.equal(renewed.report.refreshed, 1);
  assert.equal((await stash.list())[0].expiresAt, now + 3600 * 1000);
  // Past its expiry: read and written again.
  now += 3601 * 1000;
  const late = await compact(openai(text), { stash }, text);
  assert.equal(late.copies, 1);
  assert.deepEqual(late.messages, first.messages);
  assert.equal((await stash.list())[0].expiresAt, now + 3600 * 1000);
  stash.free();
});

test('concurrent calls give what calls one after another give', async () => {
  const texts = [toolText(await screenshot(705)), toolText(await screenshot(706))];
  const history = [...openai(texts[0]).slice(0, 3), { role: 'tool', tool_call_id: 'c2', content: texts[1] }, ...openai(texts[0]).slice(3)];
  history[1] = { ...history[1], tool_calls: [...history[1].tool_calls, { id: 'c2', type: 'function', function: { name: 'screenshot', arguments: '{}' } }] };
  const alone = await compactContext(history, { stash: await Stash.open({ backend: 'memory' }), sanitizeToolResults: true });
  const stash = await Stash.open({ backend: 'memory' });
  for (let round = 0; round < 2; round++) {
    const both = await Promise.all([compact(history, { stash }, texts[0]), compact(history, { stash }, texts[0])]);
    for (const out of both) {
      assert.deepEqual(out.messages, alone.messages, `round ${round}`);
      assert.deepEqual(out.report, alone.report, `round ${round}`);
    }
  }
  assert.equal((await stash.list()).length, 2);
  stash.free();
});

test('text that opens JSON anywhere else, or that cannot be read as JSON, reads as it did', async () => {
  const b64 = await screenshot(707);
  const stash = await Stash.open({ backend: 'memory' });
  // A pasted JSON document in a user message: not a tool result.
  const pasted = toolText(b64);
  // Tool texts that open an object but are no JSON: a U+0000 in it, a lone
  // surrogate, an unclosed object.
  const odd = [`{"a":"\u0000"${'x'.repeat(2000)}`, `{"a":"\ud800${'x'.repeat(2000)}"}`, `{"imageBase64":"${b64}"`];
  const history = [
    { role: 'user', content: pasted },
    { role: 'assistant', content: null, tool_calls: odd.map((_, i) => ({ id: `c${i}`, type: 'function', function: { name: 'f', arguments: '{}' } })) },
    ...odd.map((content, i) => ({ role: 'tool', tool_call_id: `c${i}`, content })),
    { role: 'user', content: 'and now?' },
  ];
  const on = await compactContext(history, { stash, sanitizeToolResults: true });
  const off = await compactContext(history, { stash });
  assert.deepEqual(on.report, off.report);
  on.messages.forEach((m, i) => assert.equal(m, history[i], `message ${i}`));
  stash.free();
});

test('through the AI SDK middleware and the LangChain adapter, the tool\'s text sent again is not copied in either', async () => {
  const { ctxpackMiddleware } = await countedAdapter('ai-sdk');
  const { compactMessages } = await countedAdapter('langchain');
  const { HumanMessage, AIMessage, ToolMessage } = await import('@langchain/core/messages');
  const b64 = await screenshot(708);
  const text = toolText(b64);
  const stash = await Stash.open({ backend: 'memory' });
  // The AI SDK's prompt, as it hands it to the middleware: a tool's string
  // result is a `text` output.
  const middleware = ctxpackMiddleware({ stash, sanitizeToolResults: true });
  const prompt = [
    { role: 'user', content: [{ type: 'text', text: 'take a screenshot' }] },
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'screenshot', input: {} }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'screenshot', output: { type: 'text', value: text } }] },
    { role: 'user', content: [{ type: 'text', text: 'and now?' }] },
  ];
  const viaAiSdk = async () => {
    const { value, copies } = await copiesOf(text, () => middleware.transformParams({ params: { prompt }, model: { provider: 'openai.chat' } }));
    return { value: value.prompt[2].content[0].output.value, copies };
  };
  const first = await viaAiSdk();
  assert.equal(first.copies, 1);
  assert.equal(markerId(first.value), md5(b64));
  assert.deepEqual(await viaAiSdk(), { value: first.value, copies: 0 });
  // LangChain messages, as an agent's state keeps them.
  const messages = [new HumanMessage('take a screenshot'), new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'screenshot', args: {} }] }), new ToolMessage({ content: text, tool_call_id: 'c1' }), new HumanMessage('and now?')];
  const viaLangChain = async () => {
    const { value, copies } = await copiesOf(text, () => compactMessages(messages, { stash, sanitizeToolResults: true }));
    return { value: value.messages[2].content, copies };
  };
  // The same string the AI SDK's prompt held: remembered already.
  assert.deepEqual(await viaLangChain(), { value: first.value, copies: 0 });
  stash.free();
});
