// `ctxpack proxy --redis URL` and `ctxpack mcp --redis URL` on one real
// redis-server: what the proxy stashes, the MCP server answers.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { freePort, startRedis } from './support/redis.mjs';
import { cli, screenshot, startProxy, startStub } from './support/proxy_stub.mjs';

const md5 = (s) => createHash('md5').update(s).digest('hex');
let dir;
let redis;
let url;
let stub;

before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ctxpack-proxy-redis-'));
  const port = await freePort();
  redis = await startRedis(port, dir);
  url = `redis://127.0.0.1:${port}`;
  stub = await startStub();
});
after(async () => {
  redis?.kill();
  await stub?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('the proxy stashes in Redis and ctxpack mcp --redis answers from it', async () => {
  const proxy = await startProxy(['--anthropic-upstream', stub.url, '--redis', url, '--redis-prefix', 'team1:', '--keep-recent-images', '0', '--no-slack']);
  const client = new Client({ name: 'ctxpack-test', version: '1.0.0' });
  try {
    assert.match(proxy.log(), /stash: redis 127\.0\.0\.1:\d+/);
    const shot = await screenshot(400);
    const body = JSON.stringify({ model: 'claude-sonnet-5-5', max_tokens: 8, messages: [
      { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: shot } }] },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: 'and now?' },
    ] });
    const res = await fetch(`${proxy.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    assert.equal(res.status, 200);
    await res.text();
    assert.ok(stub.requests.at(-1).body.toString().includes(`[Picture:history_${md5(shot)}]`));
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [cli, 'mcp', '--redis', url, '--redis-prefix', 'team1:'], stderr: 'pipe' }));
    const answer = await client.callTool({ name: 'get_history_image', arguments: { image_md5: md5(shot) } });
    assert.equal(answer.content.find((c) => c.type === 'image')?.data, shot);
  } finally {
    await client.close();
    await proxy.stop();
  }
});

test('Redis gone while the proxy runs: requests still go through, their images inline, nothing lost', async () => {
  const port = await freePort();
  const data = mkdtempSync(path.join(os.tmpdir(), 'ctxpack-proxy-redis-down-'));
  const down = await startRedis(port, data);
  const proxy = await startProxy(['--anthropic-upstream', stub.url, '--redis', `redis://127.0.0.1:${port}`, '--keep-recent-images', '0', '--no-slack']);
  try {
    down.kill();
    await new Promise((r) => down.on('exit', r));
    const shot = await screenshot(420);
    const body = JSON.stringify({ model: 'claude-sonnet-5-5', max_tokens: 8, messages: [
      { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: shot } }] },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: 'and now?' },
    ] });
    const at = stub.requests.length;
    const res = await fetch(`${proxy.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(10_000) });
    assert.equal(res.status, 200);
    await res.text();
    assert.ok(stub.requests[at].body.toString().includes(shot), 'the image is sent inline');
  } finally {
    await proxy.stop();
    rmSync(data, { recursive: true, force: true });
  }
});
