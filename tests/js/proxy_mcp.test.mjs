// `ctxpack mcp` through the MCP SDK's own client over stdio, answering
// get_history_image from the stash `ctxpack proxy` writes; two proxy
// processes and one MCP process on one --stash-dir at once lose nothing.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { cli, screenshot, startProxy, startStub } from './support/proxy_stub.mjs';

const md5 = (s) => createHash('md5').update(s).digest('hex');
let dir;
let stub;
let mcp;

async function startMcp(stashDir) {
  const client = new Client({ name: 'ctxpack-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [cli, 'mcp', '--stash-dir', stashDir], stderr: 'pipe' }));
  return client;
}

/** An Anthropic body whose first turn holds `b64`, so that the proxy stashes it. */
const chatWith = (b64, n) => JSON.stringify({
  model: 'claude-sonnet-5-5', max_tokens: 8,
  messages: [
    { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: b64 } }, { type: 'text', text: `look ${n}` }] },
    { role: 'assistant', content: 'ok' },
    { role: 'user', content: 'and now?' },
  ],
});
const post = (proxy, body) => fetch(`${proxy.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'k' }, body }).then((r) => r.text());

before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ctxpack-mcp-'));
  stub = await startStub();
  mcp = await startMcp(dir);
});
after(async () => {
  await mcp?.close();
  await stub?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('tools/list holds get_history_image, with its image_md5 parameter', async () => {
  const { tools } = await mcp.listTools();
  const tool = tools.find((t) => t.name === 'get_history_image');
  assert.ok(tool);
  assert.deepEqual(tool.inputSchema.required, ['image_md5']);
  assert.match(tool.description, /\[Picture:history_<md5>\]/);
});

test('an id the proxy stashed comes back as the same bytes; an unknown id gets a text answer', async () => {
  const proxy = await startProxy(['--anthropic-upstream', stub.url, '--stash-dir', dir, '--keep-recent-images', '0', '--no-slack']);
  try {
    const shot = await screenshot(200);
    await post(proxy, chatWith(shot, 0));
    assert.ok(stub.requests.at(-1).body.toString().includes(`[Picture:history_${md5(shot)}]`));
    const found = await mcp.callTool({ name: 'get_history_image', arguments: { image_md5: `history_${md5(shot)}` } });
    const image = found.content.find((c) => c.type === 'image');
    assert.equal(image.mimeType, 'image/png');
    assert.equal(image.data, shot);
    const missing = await mcp.callTool({ name: 'get_history_image', arguments: { image_md5: 'f'.repeat(32) } });
    assert.deepEqual(missing.content.map((c) => c.type), ['text']);
    assert.match(missing.content[0].text, /not found/i);
  } finally {
    await proxy.stop();
  }
});

test('two proxy processes and one MCP process on one --stash-dir at once lose nothing', async () => {
  const args = ['--anthropic-upstream', stub.url, '--stash-dir', dir, '--keep-recent-images', '0', '--no-slack', '--quiet'];
  const proxies = await Promise.all([startProxy(args), startProxy(args)]);
  try {
    const shots = await Promise.all(Array.from({ length: 24 }, (_, i) => screenshot(300 + i)));
    // Every screenshot sent through both proxies at once, while the MCP server reads those already sent.
    const reads = [];
    await Promise.all(shots.map(async (shot, i) => {
      await Promise.all(proxies.map((p) => post(p, chatWith(shot, i))));
      reads.push(mcp.callTool({ name: 'get_history_image', arguments: { image_md5: md5(shot) } }));
    }));
    for (const [i, answer] of (await Promise.all(reads)).entries()) assert.ok(answer.content.some((c) => c.type === 'image'), `read ${i} found its image`);
    for (const shot of shots) {
      const answer = await mcp.callTool({ name: 'get_history_image', arguments: { image_md5: md5(shot) } });
      assert.equal(answer.content.find((c) => c.type === 'image')?.data, shot);
    }
  } finally {
    await Promise.all(proxies.map((p) => p.stop()));
  }
});

test("the MCP SDK is the CLI's dependency alone: no library entry point loads it", async () => {
  const { execFileSync } = await import('node:child_process');
  const script = `
    require('ctxpack'); require('ctxpack/node'); require('ctxpack/proxy'); require('ctxpack/redis');
    import('ctxpack/proxy').then(() => {
      const loaded = Object.keys(require.cache).filter((f) => f.includes('node_modules'));
      process.stdout.write(JSON.stringify(loaded));
    });`;
  const loaded = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: path.dirname(cli), encoding: 'utf8' }));
  assert.deepEqual(loaded, [], 'the entry points load nothing from node_modules');
});
