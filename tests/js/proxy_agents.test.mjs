// The real agents through `ctxpack proxy`, offline, against a stub upstream
// that drives a tool loop of screenshots: Claude Code (its Read tool returns
// each PNG as an image in a tool_result) and the Codex CLI (view_image, its
// result an input_image in function_call_output). Installed by
// `scripts/setup.sh --test` into a folder of their own; without them (a
// plain `node --test` where setup has not run) the tests are skipped, under
// `npm test` they are required.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { cli, screenshot, startProxy, startStub } from './support/proxy_stub.mjs';

const md5 = (s) => createHash('md5').update(s).digest('hex');
const agents = process.env.CTXPACK_AGENTS_DIR || path.join(os.homedir(), '.cache/ctxpack-test-agents');
const claude = path.join(agents, 'node_modules/.bin/claude');
const codex = path.join(agents, 'node_modules/.bin/codex');
const required = process.env.CTXPACK_NPM_TEST === '1';
const skip = (bin) => (existsSync(bin) || required ? false : `${path.basename(bin)} is not installed (scripts/setup.sh --test installs it)`);
const SHOTS = 4;
/** Every base64 image payload in a request's text, in order (as the agent sent it, which may have re-encoded the file). */
const payloads = (text) => [...text.matchAll(/"data":"([A-Za-z0-9+/=]{200,})"|"image_url":"data:image\/[a-z]+;base64,([A-Za-z0-9+/=]{200,})"/g)].map((m) => m[1] ?? m[2]);

let stub;
let work;
let shots;
before(async () => {
  work = mkdtempSync(path.join(os.tmpdir(), 'ctxpack-agents-'));
  stub = await startStub();
  shots = await Promise.all(Array.from({ length: SHOTS }, (_, i) => screenshot(600 + i, 640, 400)));
  shots.forEach((b64, i) => writeFileSync(path.join(work, `shot${i}.png`), Buffer.from(b64, 'base64')));
});
after(async () => {
  await stub?.close();
  rmSync(work, { recursive: true, force: true });
});

/** Runs `cmd args` with `env` until it exits; its exit code and output. */
function run(cmd, args, env, cwd) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, out, err }); });
  });
}

/** Server-sent events of one Anthropic message with `blocks` (text or tool_use). */
function anthropicStream(model, blocks, stop) {
  const id = `msg_agent_${Math.random().toString(36).slice(2)}`;
  const events = [['message_start', { type: 'message_start', message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } }]];
  blocks.forEach((b, index) => {
    if (b.type === 'text') {
      events.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }]);
      events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: b.text } }]);
    } else {
      events.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } }]);
      events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) } }]);
    }
    events.push(['content_block_stop', { type: 'content_block_stop', index }]);
  });
  events.push(['message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } }]);
  events.push(['message_stop', { type: 'message_stop' }]);
  return events.map(([e, d]) => `event: ${e}\ndata: ${JSON.stringify(d)}\n\n`).join('');
}

test('Claude Code finishes a screenshot tool loop through the proxy: history screenshots reach the upstream as placeholders, ?beta=true kept, and ctxpack mcp answers one', { skip: skip(claude), timeout: 180_000 }, async () => {
  const stash = path.join(work, 'stash-claude');
  const proxy = await startProxy(['--anthropic-upstream', stub.url, '--stash-dir', stash, '--keep-recent-images', '0', '--no-slack']);
  const loop = [];
  stub.respond = async (req, body, res) => {
    if (!req.url.startsWith('/v1/messages') || req.url.startsWith('/v1/messages/count_tokens')) return false;
    const json = JSON.parse(body.toString('utf8'));
    const hasRead = (json.tools ?? []).some((t) => t.name === 'Read');
    const text = body.toString('utf8');
    const done = (text.match(/"tool_use_id"/g) ?? []).length;
    let blocks;
    let stop = 'end_turn';
    if (hasRead && done < SHOTS) {
      loop.push({ url: req.url, text });
      blocks = [{ type: 'tool_use', id: `toolu_${done}`, name: 'Read', input: { file_path: path.join(work, `shot${done}.png`) } }];
      stop = 'tool_use';
    } else {
      if (hasRead) loop.push({ url: req.url, text });
      blocks = [{ type: 'text', text: hasRead ? 'All four screens checked: DONE.' : 'ok' }];
    }
    if (json.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(anthropicStream(json.model, blocks, stop));
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: `msg_${Math.random().toString(36).slice(2)}`, type: 'message', role: 'assistant', model: json.model, content: blocks.map((b) => (b.type === 'text' ? b : { ...b })), stop_reason: stop, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 5 } }));
    }
    return true;
  };
  const home = path.join(work, 'home-claude');
  const env = {
    PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`, HOME: home, ANTHROPIC_BASE_URL: proxy.url, ANTHROPIC_API_KEY: 'sk-ant-agent-secret',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_TELEMETRY: '1', DISABLE_AUTOUPDATER: '1',
  };
  try {
    const r = await run(claude, ['-p', `Read the screenshots shot0.png to shot${SHOTS - 1}.png one by one with the Read tool, then say DONE.`, '--output-format', 'json', '--allowedTools', 'Read'], env, work);
    assert.equal(r.code, 0, r.err + r.out);
    assert.match(JSON.parse(r.out).result, /DONE/);
    assert.ok(loop.length >= SHOTS, `the agent went round the loop (${loop.length} requests)`);
    assert.ok(loop.every((l) => l.url === '/v1/messages?beta=true'), 'the ?beta=true query is kept');
    // What the agent sent of each screenshot: the newest payload of the request after its tool result.
    const sentShots = loop.slice(1, SHOTS + 1).map((l) => payloads(l.text).at(-1));
    assert.equal(new Set(sentShots).size, SHOTS, 'one screenshot a turn');
    const last = loop.at(-1).text;
    // The last request: every earlier screenshot a placeholder, the newest tool result's whole.
    for (let i = 0; i < SHOTS - 1; i++) assert.ok(last.includes(`[Picture:history_${md5(sentShots[i])}]`) && !last.includes(sentShots[i]), `screenshot ${i} is a placeholder`);
    assert.ok(last.includes(sentShots[SHOTS - 1]), 'the newest screenshot is sent whole');
    const mcp = new Client({ name: 'ctxpack-test', version: '1.0.0' });
    await mcp.connect(new StdioClientTransport({ command: process.execPath, args: [cli, 'mcp', '--stash-dir', stash], stderr: 'pipe' }));
    try {
      const answer = await mcp.callTool({ name: 'get_history_image', arguments: { image_md5: md5(sentShots[0]) } });
      assert.equal(answer.content.find((c) => c.type === 'image')?.data, sentShots[0]);
    } finally {
      await mcp.close();
    }
    assert.doesNotMatch(proxy.log(), /sk-ant-agent-secret/);
  } finally {
    stub.respond = null;
    await proxy.stop();
  }
});

/** Server-sent events of one Responses API answer whose output is `item`. */
function responsesStream(model, item) {
  const id = `resp_${Math.random().toString(36).slice(2)}`;
  const response = (status, output) => ({ id, object: 'response', created_at: 1, status, model, output, usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 } });
  let n = 0;
  const events = [
    ['response.created', { response: response('in_progress', []) }],
    ['response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress' } }],
    ['response.output_item.done', { output_index: 0, item }],
    ['response.completed', { response: response('completed', [item]) }],
  ];
  return events.map(([type, d]) => `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: n++, ...d })}\n\n`).join('');
}

test('Codex finishes a view_image loop through the proxy: inside the loop the screenshots the model answered reach the upstream as placeholders, the newest inline; on the next prompt all are placeholders', { skip: skip(codex), timeout: 240_000 }, async () => {
  const stash = path.join(work, 'stash-codex');
  const proxy = await startProxy(['--openai-upstream', stub.url, '--stash-dir', stash, '--keep-recent-images', '0', '--no-slack']);
  const loop = [];
  stub.respond = async (req, body, res) => {
    if (req.url !== '/v1/responses') return false;
    const json = JSON.parse(body.toString('utf8'));
    const text = body.toString('utf8');
    loop.push(text);
    const outputs = (json.input ?? []).filter((i) => i.type === 'function_call_output').length;
    const wantsImage = (json.tools ?? []).some((t) => t.name === 'view_image');
    const item = wantsImage && outputs < SHOTS - 1
      ? { type: 'function_call', id: `fc_${outputs}`, call_id: `call_${outputs}`, name: 'view_image', arguments: JSON.stringify({ path: path.join(work, `shot${outputs}.png`) }), status: 'completed' }
      : { type: 'message', id: `msg_${outputs}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Checked the screens: DONE.', annotations: [] }] };
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(responsesStream(json.model, item));
    return true;
  };
  const home = path.join(work, 'codex-home');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(home, { recursive: true });
  writeFileSync(path.join(home, 'config.toml'), [
    'model = "gpt-5-codex"', 'model_provider = "stub"', 'check_for_update_on_startup = false', '',
    '[model_providers.stub]', 'name = "stub"', `base_url = "${proxy.url}/v1"`, 'env_key = "OPENAI_API_KEY"', 'wire_api = "responses"', '',
    '[analytics]', 'enabled = false', '', '[features]', 'plugins = false', 'apps = false', '',
  ].join('\n'));
  const env = { PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`, HOME: home, CODEX_HOME: home, OPENAI_API_KEY: 'sk-codex-agent-secret' };
  try {
    const first = await run(codex, ['exec', '--skip-git-repo-check', `Look at the screenshots shot0.png to shot${SHOTS - 2}.png in ${work} one by one with view_image, then say DONE.`], env, work);
    assert.equal(first.code, 0, first.err + first.out);
    assert.match(first.out + first.err, /DONE/);
    const firstTurn = loop.length;
    assert.ok(firstTurn >= SHOTS, `the agent went round the loop (${firstTurn} requests)`);
    // Each screenshot reached the upstream inline while it was the newest
    // tool result; in the loop's last request, every screenshot the model
    // had answered is a placeholder and only the newest is inline.
    const seen = [...new Set(loop.slice(0, firstTurn).flatMap((t) => payloads(t)))];
    assert.equal(seen.length, SHOTS - 1, 'each screenshot went upstream inline once');
    const last = loop[firstTurn - 1];
    assert.deepEqual(payloads(last), [seen.at(-1)], 'the last request of the loop holds only the newest screenshot inline');
    for (const [i, shot] of seen.slice(0, -1).entries()) assert.ok(last.includes(`[Picture:history_${md5(shot)}]`), `screenshot ${i} is a placeholder inside the loop`);
    const second = await run(codex, ['exec', '--skip-git-repo-check', 'resume', '--last', 'Thanks. Summarize in one word.'], env, work);
    assert.equal(second.code, 0, second.err + second.out);
    const next = loop.at(-1);
    for (const [i, shot] of seen.entries()) assert.ok(next.includes(`[Picture:history_${md5(shot)}]`) && !next.includes(shot), `screenshot ${i} is a placeholder on the next prompt`);
    assert.doesNotMatch(proxy.log(), /sk-codex-agent-secret/);
  } finally {
    stub.respond = null;
    await proxy.stop();
  }
});
