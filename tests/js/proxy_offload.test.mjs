// `ctxpack proxy --offload`: the history images the model still sees are
// uploaded once to the provider's Files API, with the request's own
// credentials, and sent by reference (Anthropic with the Files API beta
// header; OpenAI's Responses API), against a stub upstream's /v1/files.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { makeNoisePng } from '../fixtures/make.mjs';
import { startProxy, startStub } from './support/proxy_stub.mjs';

let stub;
let proxy;
let dir;
let shots;
const uploads = [];

before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ctxpack-offload-'));
  stub = await startStub();
  stub.respond = async (req, body, res) => {
    if (req.url !== '/v1/files') return false;
    uploads.push({ headers: req.headers, body });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: `file_${uploads.length}`, type: 'file', object: 'file' }));
    return true;
  };
  proxy = await startProxy(['--anthropic-upstream', stub.url, '--openai-upstream', stub.url, '--stash-dir', dir, '--offload']);
  // Noise PNGs of ~120 KB: above offload's 32 KiB floor.
  shots = (await Promise.all([0, 1, 2, 3, 4].map((i) => makeNoisePng(200, 200, 900 + i)))).map((b) => b.toString('base64'));
});
after(async () => {
  await proxy?.stop();
  await stub?.close();
  rmSync(dir, { recursive: true, force: true });
});

const image = (data) => ({ type: 'image', source: { type: 'base64', media_type: 'image/png', data } });

test('Anthropic: kept history images uploaded once with the request\'s own key, referenced, the request carrying the Files API beta', async () => {
  const client = new Anthropic({ apiKey: 'sk-ant-offload-key', baseURL: proxy.url, maxRetries: 0, defaultHeaders: { 'anthropic-beta': 'context-management-2025-06-27' } });
  const messages = [];
  for (let i = 0; i < 3; i++) messages.push({ role: 'user', content: [image(shots[i]), { type: 'text', text: `screen ${i}` }] }, { role: 'assistant', content: 'ok' });
  messages.push({ role: 'user', content: 'What changed?' });
  const at = stub.requests.length;
  await client.messages.create({ model: 'claude-sonnet-5-5', max_tokens: 8, messages });
  assert.equal(uploads.length, 3);
  for (const u of uploads) {
    assert.ok(u.headers['x-api-key'] === 'sk-ant-offload-key' || u.headers.authorization === 'Bearer sk-ant-offload-key', 'uploaded with the request\'s own key');
    assert.match(u.headers['anthropic-beta'], /files-api-2025-04-14/);
    assert.match(u.headers['content-type'], /^multipart\/form-data; boundary=/);
  }
  const sent = stub.requests.filter((r) => r.url === '/v1/messages').at(-1);
  assert.ok(stub.requests.indexOf(sent) > at);
  const text = sent.body.toString('utf8');
  for (let i = 0; i < 3; i++) assert.ok(!text.includes(shots[i]), `image ${i} is not inline`);
  assert.equal((text.match(/"type":"file","file_id":"file_\d"/g) ?? []).length, 3);
  assert.equal(sent.headers['anthropic-beta'], 'context-management-2025-06-27,files-api-2025-04-14');
  // The next turn: the same images again and a new one: only the new one is uploaded.
  const newer = [...messages.slice(0, 6), { role: 'user', content: [image(shots[3]), { type: 'text', text: 'screen 3' }] }, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'And now?' }];
  await client.messages.create({ model: 'claude-sonnet-5-5', max_tokens: 8, messages: newer });
  assert.equal(uploads.length, 4, 'each image is uploaded once');
  const [line] = (await proxy.waitLines('1 uploaded'));
  assert.match(line, /images 0 stashed, 0 kept, 4 by reference, 1 uploaded/);
  assert.doesNotMatch(proxy.log(), /sk-ant-offload-key/);
});

test('OpenAI Responses: kept history images uploaded with purpose vision and sent as input_image file_id', async () => {
  const client = new OpenAI({ apiKey: 'sk-openai-offload-key', baseURL: `${proxy.url}/v1`, maxRetries: 0 });
  const before = uploads.length;
  const url = `data:image/png;base64,${shots[4]}`;
  const input = [
    { type: 'message', role: 'user', content: [{ type: 'input_image', image_url: url, detail: 'auto' }, { type: 'input_text', text: 'Look.' }] },
    { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Seen.' }] },
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'What was it?' }] },
  ];
  await client.responses.create({ model: 'gpt-5-codex', input });
  assert.equal(uploads.length, before + 1);
  const upload = uploads.at(-1);
  assert.equal(upload.headers.authorization, 'Bearer sk-openai-offload-key');
  assert.match(upload.body.toString('latin1'), /name="purpose"\r\n\r\nvision\r\n/);
  assert.ok(upload.body.includes(Buffer.from(shots[4], 'base64')), 'the image\'s bytes are uploaded');
  const sent = stub.requests.filter((r) => r.url === '/v1/responses').at(-1).body.toString('utf8');
  assert.ok(!sent.includes(shots[4]));
  assert.match(sent, /"type":"input_image","file_id":"file_\d+"|"file_id":"file_\d+"/);
});
