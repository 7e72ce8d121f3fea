// `ctxpack proxy` in front of the OpenAI and Gemini APIs, through the real
// `openai` and `@google/genai` clients pointed at it, against a stub
// upstream answering as each API does, streamed and not.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { GoogleGenAI } from '@google/genai';
import { screenshot, startProxy, startStub } from './support/proxy_stub.mjs';

const md5 = (s) => createHash('md5').update(s).digest('hex');
let stub;
let proxy;
let dir;
let shots;

before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ctxpack-proxy-'));
  stub = await startStub({ pause: 20 });
  proxy = await startProxy(['--openai-upstream', stub.url, '--gemini-upstream', stub.url, '--stash-dir', dir, '--keep-recent-images', '0', '--no-slack']);
  shots = await Promise.all([10, 11, 12].map((i) => screenshot(i)));
});
after(async () => {
  await proxy?.stop();
  await stub?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The request the stub received last, as text, checked: shots 0 and 1 placeholders, shot 2 whole. */
function checkSent(sent, url) {
  assert.equal(sent.url, url);
  const text = sent.body.toString('utf8');
  for (const i of [0, 1]) {
    assert.ok(!text.includes(shots[i]), `history screenshot ${i} is not sent`);
    assert.ok(text.includes(`[Picture:history_${md5(shots[i])}]`), `history screenshot ${i} is a placeholder`);
  }
  assert.ok(text.includes(shots[2]), 'the newest turn is sent whole');
  return JSON.parse(text);
}

const png = (b64) => `data:image/png;base64,${b64}`;

for (const stream of [false, true]) {
  test(`chat.completions.create${stream ? ' (streamed)' : ''} through the proxy compacts the history and answers as the upstream did`, async () => {
    const client = new OpenAI({ apiKey: 'sk-openai-test-chat', baseURL: `${proxy.url}/v1`, maxRetries: 0 });
    const messages = [
      { role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: png(shots[0]) } }] },
      { role: 'assistant', content: 'A window.' },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: png(shots[1]) } }, { type: 'text', text: 'And this?' }] },
      { role: 'assistant', content: 'A dialog.' },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: png(shots[2]) } }, { type: 'text', text: 'And now?' }] },
    ];
    const at = stub.requests.length;
    let text = '';
    if (stream) {
      for await (const chunk of await client.chat.completions.create({ model: 'gpt-4o', messages, stream: true })) text += chunk.choices[0]?.delta?.content ?? '';
    } else {
      text = (await client.chat.completions.create({ model: 'gpt-4o', messages })).choices[0].message.content;
    }
    assert.equal(text, `stub answer ${at + 1}`);
    const body = checkSent(stub.requests[at], '/v1/chat/completions');
    assert.deepEqual(body.messages.at(-1), messages.at(-1));
  });

  test(`responses.create${stream ? ' (streamed)' : ''} as Codex sends it: screenshots in function_call_output lists compacted, the pending one whole`, async () => {
    const client = new OpenAI({ apiKey: 'sk-openai-test-responses', baseURL: `${proxy.url}/v1`, maxRetries: 0 });
    const input = [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Look at the screen.' }, { type: 'input_image', image_url: png(shots[0]), detail: 'auto' }] },
      { type: 'function_call', call_id: 'c1', name: 'view_image', arguments: '{"path":"a.png"}' },
      { type: 'function_call_output', call_id: 'c1', output: [{ type: 'input_image', image_url: png(shots[1]) }] },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Seen.' }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'And this one?' }, { type: 'input_image', image_url: png(shots[2]), detail: 'auto' }] },
    ];
    const at = stub.requests.length;
    let text = '';
    if (stream) {
      for await (const event of await client.responses.create({ model: 'gpt-5-codex', input, stream: true })) if (event.type === 'response.output_text.delta') text += event.delta;
    } else {
      text = (await client.responses.create({ model: 'gpt-5-codex', input })).output_text;
    }
    assert.equal(text, `stub answer ${at + 1}`);
    const body = checkSent(stub.requests[at], '/v1/responses');
    assert.deepEqual(body.input.at(-1), input.at(-1));
  });

  test(`Gemini ${stream ? 'generateContentStream' : 'generateContent'} through the proxy compacts the history and answers as the upstream did`, async () => {
    const ai = new GoogleGenAI({ apiKey: 'gemini-test-key', httpOptions: { baseUrl: proxy.url } });
    const inline = (b64) => ({ inlineData: { mimeType: 'image/png', data: b64 } });
    const contents = [
      { role: 'user', parts: [inline(shots[0]), { text: 'What is this?' }] },
      { role: 'model', parts: [{ text: 'A window.' }] },
      { role: 'user', parts: [inline(shots[1]), { text: 'And this?' }] },
      { role: 'model', parts: [{ text: 'A dialog.' }] },
      { role: 'user', parts: [inline(shots[2]), { text: 'And now?' }] },
    ];
    const at = stub.requests.length;
    let text = '';
    if (stream) {
      for await (const chunk of await ai.models.generateContentStream({ model: 'gemini-2.5-pro', contents })) text += chunk.text ?? '';
    } else {
      text = (await ai.models.generateContent({ model: 'gemini-2.5-pro', contents })).text;
    }
    assert.equal(text, `stub answer ${at + 1}`);
    // @google/genai 3 calls the v1 API by default (v1beta before): both are routed.
    const url = `/${stub.requests[at].url.split('/')[1]}/models/gemini-2.5-pro:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`;
    assert.match(url, /^\/v1(beta)?\//);
    const body = checkSent(stub.requests[at], url);
    assert.deepEqual(body.contents.at(-1), contents.at(-1));
    const lines = await proxy.waitLines(stream ? ':streamGenerateContent' : ':generateContent');
    assert.ok(lines.at(-1).includes('gemini-2.5-pro') && lines.at(-1).includes('images 2 stashed'), lines.at(-1));
    assert.ok(!proxy.log().includes('gemini-test-key'), 'the key is not logged');
  });
}

test('Gemini Interactions (ai.interactions.create) through the proxy: the earlier step\'s image a placeholder, the newest whole', async () => {
  const ai = new GoogleGenAI({ apiKey: 'gemini-test-key', httpOptions: { baseUrl: proxy.url } });
  stub.respond = async (req, body, res) => {
    if (!/\/interactions$/.test(req.url)) return false;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: 'int_1', status: 'completed', model: 'gemini-3-flash-preview', steps: [{ type: 'model_output', content: [{ type: 'text', text: 'ok' }] }] }));
    return true;
  };
  try {
    const input = [
      { type: 'user_input', content: [{ type: 'image', data: shots[0], mime_type: 'image/png' }, { type: 'text', text: 'What is this?' }] },
      { type: 'model_output', content: [{ type: 'text', text: 'A window.' }] },
      { type: 'user_input', content: [{ type: 'image', data: shots[2], mime_type: 'image/png' }, { type: 'text', text: 'And now?' }] },
    ];
    const at = stub.requests.length;
    const answer = await ai.interactions.create({ model: 'gemini-3-flash-preview', input });
    assert.equal(answer.id, 'int_1');
    const sent = stub.requests[at];
    assert.match(sent.url, /^\/v1(beta)?\/interactions$/);
    const text = sent.body.toString('utf8');
    assert.ok(!text.includes(shots[0]) && text.includes(`[Picture:history_${md5(shots[0])}]`));
    assert.ok(text.includes(shots[2]));
  } finally {
    stub.respond = null;
  }
});
