// The README's commands for agents run as written: `npx ctxpack proxy`
// (here on a free port, its upstream a stub), Claude Code's
// ANTHROPIC_BASE_URL read by the Anthropic SDK, and the MCP server that
// `claude mcp add ctxpack -- npx ctxpack mcp` registers, sharing the default
// stash folder in the user's cache directory.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { cli, root, screenshot, startProxy, startStub } from './support/proxy_stub.mjs';

const md5 = (s) => createHash('md5').update(s).digest('hex');
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
const section = readme.slice(readme.indexOf('## Claude Code, Codex and other agents'), readme.indexOf('## Formats'));
const commands = /```sh\n([\s\S]*?)```/.exec(section)[1].split('\n').map((l) => l.replace(/#.*$/, '').trim()).filter(Boolean);
/** The README's command that starts with `prefix`, as its words after it. */
const wordsAfter = (line, prefix) => line.slice(line.indexOf(prefix) + prefix.length).split(/\s+/).filter(Boolean);

let cache;
let stub;
before(async () => {
  cache = mkdtempSync(path.join(os.tmpdir(), 'ctxpack-cache-'));
  stub = await startStub();
});
after(async () => {
  await stub?.close();
  rmSync(cache, { recursive: true, force: true });
});

test("the README's proxy, Claude Code and MCP commands work together on the default stash", async () => {
  const proxyLine = commands.find((l) => l.startsWith('npx ctxpack proxy'));
  const claudeLine = commands.find((l) => l.startsWith('ANTHROPIC_BASE_URL='));
  const mcpLine = commands.find((l) => l.startsWith('claude mcp add'));
  assert.ok(proxyLine && claudeLine && mcpLine, commands.join('\n'));
  const env = { XDG_CACHE_HOME: cache };
  const proxy = await startProxy([...wordsAfter(proxyLine, 'npx ctxpack proxy'), '--anthropic-upstream', stub.url], env);
  const client = new Client({ name: 'ctxpack-test', version: '1.0.0' });
  try {
    assert.ok(proxy.log().includes(path.join(cache, 'ctxpack', 'stash')), 'the default stash is in the cache directory');
    const baseURL = /^ANTHROPIC_BASE_URL=(\S+)/.exec(claudeLine)[1].replace(':8787', `:${proxy.port}`);
    const anthropic = new Anthropic({ apiKey: 'sk-ant-test', baseURL, maxRetries: 0 });
    const shots = await Promise.all([500, 501, 502, 503, 504].map((i) => screenshot(i)));
    const messages = [];
    for (const shot of shots) messages.push({ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: shot } }] }, { role: 'assistant', content: 'ok' });
    messages.push({ role: 'user', content: 'What changed?' });
    await anthropic.messages.create({ model: 'claude-sonnet-5-5', max_tokens: 8, messages });
    // Default keep-recent-images 3 with the slack: 5 history screenshots stay inline until the window passes 10.
    assert.equal(stub.requests.at(-1).body.toString().includes('[Picture:history_'), false);
    const [mcpCommand, ...mcpArgs] = mcpLine.slice(mcpLine.indexOf(' -- ') + 4).split(/\s+/);
    assert.deepEqual([mcpCommand, ...mcpArgs.slice(0, 2)], ['npx', 'ctxpack', 'mcp']);
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [cli, ...mcpArgs.slice(1)], env: { ...process.env, ...env }, stderr: 'pipe' }));
    // With --keep-recent-images 0 and no slack the proxy stashes them all, and the MCP server on the same default stash answers.
    const strict = await startProxy(['--keep-recent-images', '0', '--no-slack', '--anthropic-upstream', stub.url], env);
    try {
      await new Anthropic({ apiKey: 'sk-ant-test', baseURL: strict.url, maxRetries: 0 }).messages.create({ model: 'claude-sonnet-5-5', max_tokens: 8, messages });
    } finally {
      await strict.stop();
    }
    const answer = await client.callTool({ name: 'get_history_image', arguments: { image_md5: `history_${md5(shots[2])}` } });
    assert.equal(answer.content.find((c) => c.type === 'image')?.data, shots[2]);
  } finally {
    await client.close();
    await proxy.stop();
  }
});
