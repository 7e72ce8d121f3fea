// compactContext's offload option through the real SDK classes: the
// history images kept for the model go as references to files the app's
// upload made, once; the bodies each SDK sends carry the reference in its
// API's own shape and none of the image's base64, and type-check under
// tsc --strict as the SDK's own input types.
import test from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { Stash, compactContext, expandContext } from 'ctxpack';
import { makeImage } from '../fixtures/make.mjs';
import { assertTypeChecks } from './support/typecheck.mjs';
import { ANTHROPIC_FILES_BETA, assertFilesBeta } from './support/wire.mjs';

const images = await Promise.all([0, 1, 2, 3].map(async (i) => (await makeImage('png', 64 + i, 48, 300 + i)).toString('base64')));
/** Values collected for the type check: [import, type, value]. */
const typed = [];

/** A fetch that records request bodies and every header, and answers with `reply`. */
function capturingFetch(reply) {
  const bodies = [];
  const headers = [];
  const fetch = async (url, init) => {
    bodies.push(JSON.parse(typeof init?.body === 'string' ? init.body : await new Response(init.body).text()));
    headers.push(Object.fromEntries(new Headers(init?.headers)));
    return new Response(JSON.stringify(reply), { status: 200, headers: { 'content-type': 'application/json' } });
  };
  return { fetch, bodies, headers };
}

/** An upload that counts its calls and names each file by the image's id. */
function counting({ uri = false, fail = null } = {}) {
  const calls = [];
  const upload = async (image) => {
    calls.push(image);
    await new Promise((r) => setTimeout(r, 5));
    if (fail?.(image)) throw new Error('503 Service Unavailable');
    return uri ? { uri: `https://generativelanguage.googleapis.com/v1beta/files/${image.md5.slice(0, 12)}` } : { id: `file-${image.md5.slice(0, 12)}` };
  };
  return { upload, calls };
}

const responsesChat = () => [
  ...images.slice(0, 3).flatMap((b64, i) => [
    { role: 'user', content: [{ type: 'input_text', text: `shot ${i}` }, { type: 'input_image', image_url: `data:image/png;base64,${b64}`, detail: 'high' }] },
    { role: 'assistant', content: 'seen' },
  ]),
  { role: 'user', content: [{ type: 'input_image', image_url: `data:image/png;base64,${images[3]}`, detail: 'high' }, { type: 'input_text', text: 'and now?' }] },
];

test('OpenAI Responses through responses.create: kept images go as file_id, uploaded once; the newest turn as it was', async () => {
  const stash = await Stash.open({ backend: 'memory' });
  const { upload, calls } = counting();
  const options = { stash, keepRecentImages: 2, slack: false, offload: { upload, minBytes: 0 } };
  const chat = responsesChat();
  const { messages, report } = await compactContext(chat, options);
  assert.deepEqual([report.stashed, report.offloaded, report.uploaded], [1, 2, 2]);
  assert.ok(calls.every((c) => c.data instanceof Uint8Array && c.mediaType === 'image/png' && c.bytes === c.data.length));
  assert.equal(Buffer.from(calls[0].data).toString('base64'), images[1]);
  const { fetch, bodies } = capturingFetch({ id: 'resp_1', object: 'response', created_at: 1, status: 'completed', model: 'gpt-5', output: [], usage: null });
  const client = new OpenAI({ apiKey: 'test', baseURL: 'http://127.0.0.1:9/v1', fetch, maxRetries: 0 });
  await client.responses.create({ model: 'gpt-5', input: messages });
  const sent = JSON.stringify(bodies[0]);
  for (const b64 of images.slice(0, 3)) assert.ok(!sent.includes(b64.slice(0, 64)), 'no history payload rides along');
  assert.ok(sent.includes(images[3].slice(0, 64)), 'the newest image is sent as it was');
  assert.deepEqual(bodies[0].input[2].content[1], { type: 'input_image', file_id: `file-${calls[0].md5.slice(0, 12)}`, detail: 'high' });
  typed.push(['import type { ResponseInputItem } from "openai/resources/responses/responses";', 'ResponseInputItem[]', messages]);
  // Sent again: nothing uploaded, the same request.
  const again = await compactContext(chat, options);
  assert.equal(again.report.uploaded, 0);
  assert.deepEqual(again.messages, messages);
  // Expanded: the originals, exactly.
  const { messages: back } = await expandContext(messages, { stash });
  assert.deepEqual(back, chat);
});

test('Anthropic through beta.messages.create with the Files API beta: source type file, the beta header sent; Gemini through generateContent: fileData with the file URI', async () => {
  const anthropicChat = [
    { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: images[0] } }, { type: 'text', text: 'a' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'seen' }] },
    { role: 'user', content: [{ type: 'text', text: 'and?' }] },
  ];
  const stash = await Stash.open({ backend: 'memory' });
  const a = counting();
  const out = await compactContext(anthropicChat, { stash, keepRecentImages: 1, offload: { upload: a.upload, minBytes: 0 } });
  assert.equal(out.report.offloaded, 1);
  const anthropic = capturingFetch({ id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-test', content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } });
  const client = new Anthropic({ apiKey: 'test', baseURL: 'http://127.0.0.1:9', fetch: anthropic.fetch, maxRetries: 0 });
  // As the README sends it: messages.create would send no anthropic-beta header.
  await client.beta.messages.create({ model: 'claude-test', max_tokens: 8, messages: out.messages, betas: [ANTHROPIC_FILES_BETA] });
  assertFilesBeta(anthropic.headers[0], 'beta.messages.create');
  await client.messages.create({ model: 'claude-test', max_tokens: 8, messages: out.messages });
  assert.equal(anthropic.headers[1]['anthropic-beta'], undefined, 'messages.create sends no beta: the reason the README sends through the beta call');
  assert.deepEqual(anthropic.bodies[0].messages[0].content[0], { type: 'image', source: { type: 'file', file_id: `file-${a.calls[0].md5.slice(0, 12)}` } });
  assert.ok(!JSON.stringify(anthropic.bodies[0]).includes(images[0].slice(0, 64)));
  typed.push(['import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";', 'MessageParam[]', out.messages]);

  const geminiChat = [
    { role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: images[1] } }, { text: 'a' }] },
    { role: 'model', parts: [{ text: 'seen' }] },
    { role: 'user', parts: [{ text: 'and?' }] },
  ];
  const g = counting({ uri: true });
  const gem = await compactContext(geminiChat, { stash, keepRecentImages: 1, offload: { upload: g.upload, minBytes: 0 } });
  const google = capturingFetch({ candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP' }] });
  const ai = new GoogleGenAI({ apiKey: 'test', httpOptions: { fetch: google.fetch } });
  await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: gem.messages });
  assert.deepEqual(google.bodies[0].contents[0].parts[0], { fileData: { mimeType: 'image/png', fileUri: `https://generativelanguage.googleapis.com/v1beta/files/${g.calls[0].md5.slice(0, 12)}` } });
  assert.ok(!JSON.stringify(google.bodies[0]).includes(images[1].slice(0, 64)));
  typed.push(['import type { Content } from "@google/genai";', 'Content[]', gem.messages]);
});

test('calls at once upload each image once; a failed upload leaves its image inline and says why', async () => {
  const stash = await Stash.open({ backend: 'memory' });
  const { upload, calls } = counting();
  const options = { stash, keepRecentImages: 2, slack: false, offload: { upload, minBytes: 0 } };
  const [one, two] = await Promise.all([compactContext(responsesChat(), options), compactContext(responsesChat(), options)]);
  assert.equal(calls.length, 2, 'two images, each uploaded once');
  assert.deepEqual(one.messages, two.messages);
  const failing = counting({ fail: (image) => image.md5 === calls[0].md5 });
  const other = await Stash.open({ backend: 'memory' });
  const { messages, report } = await compactContext(responsesChat(), { ...options, stash: other, offload: { upload: failing.upload, minBytes: 0 } });
  assert.equal(report.offloaded, 1);
  const failure = report.failures.find((f) => f.code === 'UPLOAD_FAILED');
  assert.equal(failure.path, 'messages[2].content[1]');
  assert.match(failure.reason, /503/);
  assert.deepEqual(messages[2], responsesChat()[2], 'inline, as it was');
});

test('offload options are checked at their paths, and a format without references says why', async () => {
  const stash = await Stash.open({ backend: 'memory' });
  await assert.rejects(compactContext(responsesChat(), { stash, offload: {} }), (e) => e.code === 'INVALID_OPTION' && e.path === 'options.offload.upload');
  await assert.rejects(compactContext(responsesChat(), { stash, offload: { upload: async () => ({}), provider: 'bedrock' } }), (e) => e.code === 'INVALID_OPTION' && e.path === 'options.offload.provider');
  await assert.rejects(compactContext(responsesChat(), { stash, offload: { upload: async () => ({}), minBytes: -1 } }), (e) => e.path === 'options.offload.minBytes');
  const chat = [
    { role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${images[0]}` } }] },
    { role: 'user', content: 'and?' },
  ];
  const { upload, calls } = counting();
  const { messages, report } = await compactContext(chat, { stash, keepRecentImages: 1, offload: { upload, minBytes: 0 } });
  assert.deepEqual(messages, chat);
  assert.equal(calls.length, 0);
  assert.match(report.offloadNote, /^openai images stay inline/);
});

test('a file the provider lost: repairContext forgets it, uploads the image again and gives the request back, through beta.messages.create', async () => {
  const { repairContext } = await import('ctxpack');
  const chat = [
    { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: images[0] } }, { type: 'text', text: 'a' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'seen' }] },
    { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: images[1] } }, { type: 'text', text: 'b' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'seen' }] },
    { role: 'user', content: [{ type: 'text', text: 'and?' }] },
  ];
  const stash = await Stash.open({ backend: 'memory' });
  let n = 0;
  const calls = [];
  const upload = async (image) => {
    calls.push(image.md5);
    return { id: `file_${++n}` };
  };
  const options = { stash, keepRecentImages: 2, offload: { upload, minBytes: 0 } };
  const sent = await compactContext(chat, options);
  assert.deepEqual(calls.length, 2);
  // Anthropic answers that it lost the first file, as its SDK throws it.
  const lost = sent.messages[0].content[0].source.file_id;
  const refusing = async () => new Response(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: `File not found: ${lost}` } }), { status: 404, headers: { 'content-type': 'application/json' } });
  const failing = new Anthropic({ apiKey: 'test', baseURL: 'http://127.0.0.1:9', fetch: refusing, maxRetries: 0 });
  const error = await failing.beta.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 8, messages: sent.messages, betas: [ANTHROPIC_FILES_BETA] }).then(() => null, (e) => e);
  assert.ok(error instanceof Anthropic.NotFoundError);
  const repaired = await repairContext(sent.messages, error, { model: 'claude-sonnet-4-5', ...options });
  assert.deepEqual(repaired.refusal, { kind: 'file-missing', provider: 'anthropic', fileId: lost });
  assert.equal(repaired.reupload.uploaded, 1);
  assert.deepEqual(calls, [calls[0], calls[1], calls[0]], 'the lost one, again');
  assert.deepEqual(repaired.messages[0].content[0], { type: 'image', source: { type: 'file', file_id: 'file_3' } });
  assert.deepEqual(repaired.messages[2], sent.messages[2], 'the other reference stays');
  assert.deepEqual(repaired.messages[4], chat[4]);
  assert.equal(repaired.report.fits, true);
  const anthropic = capturingFetch({ id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } });
  const client = new Anthropic({ apiKey: 'test', baseURL: 'http://127.0.0.1:9', fetch: anthropic.fetch, maxRetries: 0 });
  await client.beta.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 8, messages: repaired.messages, betas: [ANTHROPIC_FILES_BETA] });
  assertFilesBeta(anthropic.headers[0], 'the repaired request');
  const body = JSON.stringify(anthropic.bodies[0]);
  assert.ok(!body.includes(lost) && !body.includes(images[0].slice(0, 64)), 'the lost file is gone, and no payload rides along');
  // The stash remembers the new file: the same history sends it, uploading nothing.
  const again = await compactContext(chat, options);
  assert.equal(again.report.uploaded, 0);
  assert.deepEqual(again.messages, repaired.messages);
  // Without a stash nothing can be put back: not a refusal a limit fixes.
  await assert.rejects(repairContext(sent.messages, error, { model: 'claude-sonnet-4-5' }), (e) => e.code === 'NOT_A_REFUSAL');
});

test('fitContext with offload: a history image it resized goes by reference, uploaded as sent, once', async () => {
  const { fitContext } = await import('ctxpack');
  const big = (await makeImage('png', 2400, 1600, 77)).toString('base64');
  const chat = [
    { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: big } }, { type: 'text', text: 'what is this?' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'a noisy picture' }] },
    { role: 'user', content: [{ type: 'text', text: 'and now?' }] },
  ];
  const stash = await Stash.open({ backend: 'memory' });
  const { upload, calls } = counting();
  const options = { model: 'claude-sonnet-4-5', stash, offload: { upload, minBytes: 0 } };
  const { messages, report } = await fitContext(chat, options);
  assert.equal(report.changed, 1, 'resized to what the model reads');
  assert.equal(report.offload.uploaded, 1);
  assert.equal(calls.length, 1);
  const sent = Buffer.from(calls[0].data);
  assert.ok(sent.length < Buffer.from(big, 'base64').length, 'the image as fitted, not the original');
  assert.equal(calls[0].mediaType, 'image/png');
  assert.ok(sent.readUInt32BE(16) <= 1568 && sent.readUInt32BE(20) <= 1568, `${sent.readUInt32BE(16)}×${sent.readUInt32BE(20)}`);
  assert.deepEqual(messages[0].content[0], { type: 'image', source: { type: 'file', file_id: `file-${calls[0].md5.slice(0, 12)}` } });
  assert.ok(!JSON.stringify(messages).includes(big.slice(0, 64)));
  assert.deepEqual(messages[2], chat[2]);
  const again = await fitContext(chat, options);
  assert.equal(again.report.offload.uploaded, 0);
  assert.deepEqual(again.messages, messages);
  // Expanded, the reference gives back the image as it was sent.
  const { messages: back } = await expandContext(messages, { stash });
  assert.equal(back[0].content[0].source.data, sent.toString('base64'));
  // Without offload, fitContext's answer has no offload report.
  assert.equal((await fitContext(chat, { model: 'claude-sonnet-4-5', stash })).report.offload, undefined);
});

test('every request type-checks under tsc --strict as the SDK’s own input type', () => {
  assert.equal(typed.length, 3);
  const short = (v) => JSON.stringify(v, (k, x) => (typeof x === 'string' && x.length > 200 ? x.slice(0, 16) : x), 2);
  const imports = [...new Set(typed.map(([imp]) => imp))].join('\n');
  assertTypeChecks(`${imports}\n\n${typed.map(([, type, value], i) => `export const request${i}: ${type} = ${short(value)};\n`).join('\n')}`, 'offload-');
});

