// What `ctxpack proxy` does beside compaction, against a stub upstream: the
// headers it passes on, the repair of a refusal before the client sees it,
// the prompt cache's prefix over a long tool loop, what it passes through
// byte for byte, and the 502 when the upstream is down.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { after, before, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { screenshot, startProxy, startStub } from './support/proxy_stub.mjs';

let stub;
let proxy;
let dir;
let shots;
const image = (data) => ({ type: 'image', source: { type: 'base64', media_type: 'image/png', data } });

before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ctxpack-proxy-'));
  stub = await startStub();
  proxy = await startProxy(['--anthropic-upstream', stub.url, '--openai-upstream', stub.url, '--gemini-upstream', stub.url, '--stash-dir', dir]);
  shots = await Promise.all(Array.from({ length: 41 }, (_, i) => screenshot(100 + i)));
});
after(async () => {
  await proxy?.stop();
  await stub?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('x-api-key, authorization, anthropic-version and anthropic-beta reach the upstream unchanged, and no key appears in the log', async () => {
  const headers = {
    'x-api-key': 'sk-ant-secret-xapikey-1',
    Authorization: 'Bearer sk-ant-secret-bearer-2',
    'anthropic-version': '2023-06-01',
    'anthropic-beta': 'interleaved-thinking-2025-05-14,files-api-2025-04-14',
    'X-Custom-Header': 'Mixed Case Value',
    'content-type': 'application/json',
  };
  const at = stub.requests.length;
  const res = await fetch(`${proxy.url}/v1/messages`, { method: 'POST', headers, body: JSON.stringify({ model: 'claude-sonnet-5-5', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }) });
  assert.equal(res.status, 200);
  await res.text();
  const got = stub.requests[at];
  for (const [name, value] of Object.entries(headers)) assert.equal(got.headers[name.toLowerCase()], value, name);
  assert.ok(got.rawHeaders.includes('X-Custom-Header'), "a header's case is kept");
  // The SDK's own credentials too (it sends authorization: Bearer or x-api-key).
  const client = new Anthropic({ apiKey: 'sk-ant-secret-sdk-3', baseURL: proxy.url, maxRetries: 0, defaultHeaders: { 'anthropic-beta': 'context-management-2025-06-27' } });
  await client.messages.create({ model: 'claude-sonnet-5-5', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] });
  const sdk = stub.requests.at(-1).headers;
  assert.ok(sdk['x-api-key'] === 'sk-ant-secret-sdk-3' || sdk.authorization === 'Bearer sk-ant-secret-sdk-3');
  assert.equal(sdk['anthropic-beta'], 'context-management-2025-06-27');
  await proxy.waitLines('POST /v1/messages', 2);
  assert.doesNotMatch(proxy.log(), /sk-ant-secret/);
});

test('a 413 refusal is repaired and retried before the client sees it: the client gets the 200, the upstream a second, fitted request', async () => {
  const client = new Anthropic({ apiKey: 'sk-ant-test', baseURL: proxy.url, maxRetries: 0 });
  const messages = [];
  for (let i = 0; i < 6; i++) {
    messages.push({ role: 'user', content: [image(shots[i]), { type: 'text', text: `step ${i}` }] }, { role: 'assistant', content: `done ${i}` });
  }
  messages.push({ role: 'user', content: 'What changed?' });
  stub.refuse.push({ status: 413, body: { type: 'error', error: { type: 'request_too_large', message: 'Request exceeds the maximum size' } } });
  const at = stub.requests.length;
  const answer = await client.messages.create({ model: 'claude-sonnet-5-5', max_tokens: 8, messages });
  assert.equal(answer.content[0].text, `stub answer ${at + 2}`);
  assert.equal(stub.requests.length, at + 2, 'one retry');
  const [first, second] = stub.requests.slice(at);
  assert.ok(second.body.length < first.body.length, `the retry is smaller (${first.body.length} → ${second.body.length})`);
  const [line] = await proxy.waitLines('repaired after 413');
  assert.match(line, /repaired after 413 request-too-large, upstream 200/);
});

test('"too many images" from an OpenAI-compatible gateway is repaired: the retry holds what the refusal allows', async () => {
  const client = new OpenAI({ apiKey: 'sk-openai-test', baseURL: `${proxy.url}/v1`, maxRetries: 0 });
  const url = (b64) => `data:image/png;base64,${b64}`;
  const messages = [];
  for (let i = 0; i < 4; i++) messages.push({ role: 'user', content: [{ type: 'image_url', image_url: { url: url(shots[10 + i]) } }, { type: 'text', text: `turn ${i}` }] }, { role: 'assistant', content: 'ok' });
  messages.push({ role: 'user', content: 'Compare them.' });
  stub.refuse.push({ status: 400, body: { error: { message: 'Too many images in request. Max is 2.', type: 'invalid_request_error' } } });
  const at = stub.requests.length;
  const answer = await client.chat.completions.create({ model: 'gpt-4o', messages });
  assert.equal(answer.choices[0].message.content, `stub answer ${at + 2}`);
  const retry = stub.requests[at + 1].body.toString('utf8');
  assert.equal((retry.match(/data:image\/png;base64,/g) ?? []).length, 2);
  assert.equal((stub.requests[at].body.toString('utf8').match(/data:image\/png;base64,/g) ?? []).length, 4);
});

test('a refusal the proxy cannot repair reaches the client as the upstream sent it', async () => {
  stub.refuse.push({ status: 401, body: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } } });
  const res = await fetch(`${proxy.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model":"claude-sonnet-5-5","max_tokens":8,"messages":[{"role":"user","content":"hi"}]}' });
  assert.equal(res.status, 401);
  assert.deepEqual(await res.json(), { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } });
});

test('prompt cache: over 40 turns of a screenshot loop with the default keep-recent-images 3, ≥ 80 % of requests keep the previous request as their prefix', async () => {
  const client = new Anthropic({ apiKey: 'sk-ant-test', baseURL: proxy.url, maxRetries: 0 });
  const messages = [{ role: 'user', content: 'Click through the wizard.' }];
  const sent = [];
  for (let turn = 0; turn < 40; turn++) {
    messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `t${turn}`, name: 'computer', input: { action: 'screenshot' } }] });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${turn}`, content: [image(shots[turn])] }] });
    const at = stub.requests.length;
    await client.messages.create({ model: 'claude-sonnet-5-5', max_tokens: 8, messages });
    sent.push(JSON.parse(stub.requests[at].body.toString('utf8')).messages);
  }
  let kept = 0;
  for (let i = 1; i < sent.length; i++) if (isDeepStrictEqual(sent[i].slice(0, sent[i - 1].length), sent[i - 1])) kept++;
  assert.ok(kept / (sent.length - 1) >= 0.8, `${kept} of ${sent.length - 1} turns keep the prefix`);
  const inline = sent.at(-1).flatMap((m) => (Array.isArray(m.content) ? m.content : [])).flatMap((p) => p.content ?? []).filter((p) => p.type === 'image').length;
  assert.ok(inline >= 3 && inline <= 11, `${inline} screenshots inline at the end (3 kept, up to 7 more of slack, the newest)`);
});

test('the headers of a stream of events reach the client before its first event, which the upstream holds back', async () => {
  let open;
  const gate = new Promise((r) => { open = r; });
  stub.respond = async (req, body, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    await gate;
    res.end('event: message_stop\ndata: {"type":"message_stop"}\n\n');
    return true;
  };
  try {
    const answered = new Promise((resolve, reject) => {
      const req = http.request(`${proxy.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'k' } }, resolve);
      req.on('error', reject);
      req.end(JSON.stringify({ model: 'claude-sonnet-5-5', max_tokens: 8, stream: true, messages: [{ role: 'user', content: 'hi' }] }));
    });
    const late = new Promise((_, reject) => setTimeout(() => reject(new Error('no headers while the first event was held back')), 5000).unref());
    const res = await Promise.race([answered, late]);
    assert.equal(res.headers['content-type'], 'text/event-stream');
    open();
    let text = '';
    for await (const c of res) text += c;
    assert.equal(text, 'event: message_stop\ndata: {"type":"message_stop"}\n\n');
  } finally {
    stub.respond = null;
    open();
  }
});

test('pass-through: a non-JSON body, GET /v1/models and count_tokens arrive byte-identical', async () => {
  const cases = [
    { method: 'POST', url: '/v1/messages', body: Buffer.from('this is not JSON {"messages": [') },
    { method: 'POST', url: '/v1/chat/completions', body: Buffer.from([0xff, 0xfe, 0x00, 0x7b]) },
    { method: 'GET', url: '/v1/models?limit=5' },
    { method: 'POST', url: '/v1/messages/count_tokens', body: Buffer.from(JSON.stringify({ model: 'claude-sonnet-5-5', messages: [{ role: 'user', content: [image(shots[0])] }, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'hi' }] })) },
  ];
  for (const c of cases) {
    const at = stub.requests.length;
    const res = await fetch(`${proxy.url}${c.url}`, { method: c.method, headers: { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' }, body: c.body });
    await res.arrayBuffer();
    const got = stub.requests[at];
    assert.equal(got.method, c.method);
    assert.equal(got.url, c.url);
    assert.ok(got.body.equals(c.body ?? Buffer.alloc(0)), `${c.method} ${c.url} arrives byte-identical`);
  }
});

test('upstream down: a 502 in the provider\'s own error shape, naming the upstream', async () => {
  const closed = http.createServer();
  await new Promise((r) => closed.listen(0, '127.0.0.1', r));
  const dead = `http://127.0.0.1:${closed.address().port}`;
  await new Promise((r) => closed.close(r));
  const down = await startProxy(['--anthropic-upstream', dead, '--openai-upstream', dead, '--gemini-upstream', dead, '--stash-dir', dir]);
  try {
    const post = (url, headers = {}) => fetch(`${down.url}${url}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{"model":"m","messages":[],"contents":[],"input":[]}' });
    const anthropic = await post('/v1/messages');
    assert.equal(anthropic.status, 502);
    const a = await anthropic.json();
    assert.equal(a.type, 'error');
    assert.equal(a.error.type, 'api_error');
    assert.ok(a.error.message.includes(dead));
    const openai = await new OpenAI({ apiKey: 'k', baseURL: `${down.url}/v1`, maxRetries: 0 }).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }).catch((e) => e);
    assert.equal(openai.status, 502);
    assert.ok(openai.error.message.includes(dead) && openai.error.type === 'api_error');
    const gemini = await post('/v1beta/models/gemini-2.5-pro:generateContent', { 'x-goog-api-key': 'k' });
    assert.equal(gemini.status, 502);
    const g = await gemini.json();
    assert.equal(g.error.code, 502);
    assert.equal(g.error.status, 'UNAVAILABLE');
    assert.ok(g.error.message.includes(dead));
    const models = await fetch(`${down.url}/v1/models`, { headers: { authorization: 'Bearer k' } });
    assert.equal(models.status, 502, 'a request passed through gets the same 502');
    assert.ok((await models.json()).error.message.includes(dead));
  } finally {
    await down.stop();
  }
});

test("a 15 MB body of a Claude Code session (?beta=true, noise screenshots) goes through compacted and answered", async () => {
  const { makeNoisePng } = await import('../fixtures/make.mjs');
  const big = await Promise.all(Array.from({ length: 14 }, (_, i) => makeNoisePng(520, 520, 700 + i)));
  const messages = [{ role: 'user', content: 'Check every screen.' }];
  big.forEach((png, i) => {
    messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `big${i}`, name: 'Read', input: { file_path: `/tmp/s${i}.png` } }] });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `big${i}`, content: [image(png.toString('base64'))] }] });
  });
  const body = JSON.stringify({ model: 'claude-sonnet-5-5', max_tokens: 8, stream: true, messages });
  assert.ok(body.length > 15 * 1024 * 1024, `${(body.length / 1024 / 1024).toFixed(1)} MB`);
  const at = stub.requests.length;
  const res = await fetch(`${proxy.url}/v1/messages?beta=true`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' }, body });
  assert.equal(res.status, 200);
  assert.match(await res.text(), /event: message_stop/);
  const sent = stub.requests[at];
  assert.equal(sent.url, '/v1/messages?beta=true');
  assert.ok(sent.body.length < body.length / 2, `${body.length} → ${sent.body.length}`);
  assert.ok(sent.body.toString().includes(big.at(-1).toString('base64')), 'the newest screenshot is whole');
});

test('a stash that cannot be written: the image stays inline (nothing is lost), the request goes on, and the log says why', async () => {
  const { writeFileSync } = await import('node:fs');
  const notADir = path.join(dir, 'a-file');
  writeFileSync(notADir, 'not a directory');
  const broken = await startProxy(['--anthropic-upstream', stub.url, '--stash-dir', notADir, '--keep-recent-images', '0', '--no-slack']);
  try {
    const at = stub.requests.length;
    const body = JSON.stringify({ model: 'claude-sonnet-5-5', max_tokens: 8, messages: [{ role: 'user', content: [image(shots[30])] }, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'and now?' }] });
    const res = await fetch(`${broken.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    assert.equal(res.status, 200);
    await res.text();
    assert.ok(stub.requests[at].body.toString().includes(shots[30]), 'the image is sent inline');
    const [line] = await broken.waitLines('POST /v1/messages');
    assert.match(line, /images 0 stashed, 0 kept, 0 uploaded, 1 failed \(\w+\)/);
  } finally {
    await broken.stop();
  }
});
