// `ctxpack proxy` in front of the Anthropic API, through the real
// @anthropic-ai/sdk client pointed at it (baseURL), against a stub upstream
// that records what it receives and answers as the API does, streaming with
// pauses between events.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { screenshot, startProxy, startStub } from './support/proxy_stub.mjs';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const md5 = (s) => createHash('md5').update(s).digest('hex');
const image = (data) => ({ type: 'image', source: { type: 'base64', media_type: 'image/png', data } });
let stub;
let proxy;
let dir;
let shots;

before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ctxpack-proxy-'));
  stub = await startStub({ pause: 150 });
  proxy = await startProxy(['--anthropic-upstream', stub.url, '--stash-dir', dir, '--keep-recent-images', '0', '--no-slack']);
  shots = await Promise.all([0, 1, 2, 3].map((i) => screenshot(i)));
});
after(async () => {
  await proxy?.stop();
  await stub?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A computer-use chat: a screenshot in a user message, two in answered tool results, and the newest turn's tool result with the fourth. */
function chat() {
  return [
    { role: 'user', content: [image(shots[0]), { type: 'text', text: 'Open the settings.' }] },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'tu_1', name: 'computer', input: { action: 'screenshot' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu_1', content: [image(shots[1])] }] },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'tu_2', name: 'computer', input: { action: 'left_click', coordinate: [10, 20] } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu_2', content: [image(shots[2])] }] },
    { role: 'assistant', content: [{ type: 'text', text: 'Settings are open.' }] },
    { role: 'user', content: [image(shots[3]), { type: 'text', text: 'Now what does this show?' }] },
  ];
}

function checkCompacted(sent, messages) {
  const body = JSON.parse(sent.body.toString('utf8'));
  const text = sent.body.toString('utf8');
  for (const i of [0, 1, 2]) {
    assert.ok(!text.includes(shots[i]), `history screenshot ${i} is not sent`);
    assert.ok(text.includes(`[Picture:history_${md5(shots[i])}]`), `history screenshot ${i} is a placeholder`);
  }
  assert.deepEqual(body.messages.at(-1), messages.at(-1), 'the newest turn arrives whole');
  assert.equal(body.messages.length, messages.length);
}

test('messages.create through the proxy: history screenshots (user messages and tool_results) arrive as placeholders, the newest turn whole, the answer byte for byte', async () => {
  const client = new Anthropic({ apiKey: 'sk-ant-test-create', baseURL: proxy.url, maxRetries: 0 });
  const messages = chat();
  const before = stub.requests.length;
  const { data, response } = await client.messages.create({ model: 'claude-sonnet-5-5', max_tokens: 64, messages }).withResponse();
  const sent = stub.requests[before];
  assert.equal(sent.url, '/v1/messages');
  checkCompacted(sent, messages);
  assert.equal(data.content[0].text, `stub answer ${before + 1}`);
  assert.equal(response.headers.get('request-id'), `req_${before + 1}`, 'response headers pass through');
  // The same request again, read raw: what the client gets is what the stub wrote.
  const raw = await client.messages.create({ model: 'claude-sonnet-5-5', max_tokens: 64, messages }).asResponse();
  assert.equal(await raw.text(), stub.requests.at(-1).answer);
  const [line] = await proxy.waitLines('POST /v1/messages');
  assert.match(line, /claude-sonnet-5-5, .* → .*, images 3 stashed, 1 kept, 0 uploaded, first changed 0, upstream 200, \+[\d.]+ ms/);
});

test('messages.stream through the proxy: the client sees the first event before the stub sends the last, and the stream byte for byte', async () => {
  const client = new Anthropic({ apiKey: 'sk-ant-test-stream', baseURL: proxy.url, maxRetries: 0 });
  const messages = chat();
  const before = stub.requests.length;
  let release;
  stub.gate = new Promise((r) => { release = r; });
  const sentAtStart = stub.sent;
  const stream = client.messages.stream({ model: 'claude-sonnet-5-5', max_tokens: 64, messages });
  let sawFirst = false;
  const seen = [];
  for await (const event of stream) {
    if (!sawFirst) {
      sawFirst = true;
      // 7 events in all; the last is held back until the client has the first.
      assert.ok(stub.sent - sentAtStart < 7, 'the first event arrives while the stub still holds the stream open');
      release();
    }
    seen.push(event.type);
  }
  stub.gate = null;
  assert.deepEqual(seen, ['message_start', 'content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
  assert.equal((await stream.finalMessage()).content[0].text, `stub answer ${before + 1}`);
  checkCompacted(stub.requests[before], messages);
  // Raw: the SSE text is the stub's, byte for byte.
  const raw = await client.messages.create({ model: 'claude-sonnet-5-5', max_tokens: 64, messages, stream: true }).asResponse();
  assert.equal(raw.headers.get('content-type'), 'text/event-stream');
  assert.equal(await raw.text(), stub.requests.at(-1).answer);
});

test("Claude Code's ?beta=true query and a role:'system' entry inside messages: the query is kept and the body still compacted", async () => {
  const before = stub.requests.length;
  const messages = [{ role: 'system', content: 'You are a coding agent.' }, ...chat()];
  const res = await fetch(`${proxy.url}/v1/messages?beta=true`, {
    method: 'POST',
    headers: { 'x-api-key': 'sk-ant-test-beta', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'claude-sonnet-5-5', max_tokens: 64, messages }),
  });
  assert.equal(res.status, 200);
  await res.text();
  const sent = stub.requests[before];
  assert.equal(sent.url, '/v1/messages?beta=true');
  const text = sent.body.toString('utf8');
  assert.ok(!text.includes(shots[0]) && text.includes(`[Picture:history_${md5(shots[0])}]`));
  assert.ok(text.includes(shots[3]));
});
