// The proxy rows of `npm run bench` (BENCH_ONLY=proxy):
//
//   time added   `ctxpack proxy` (a real process, file stash) against the
//                same kind of server forwarding the body untouched (node:http,
//                the body read whole and sent on, the answer piped back),
//                both in front of one local upstream that answers at once:
//                the median time of a request through each on the next turn
//                of a conversation (its history re-sent, seen by both the
//                turn before), of the long agent chat (text, tool calls,
//                placeholders, four new messages a turn) and of the
//                30-screenshot chat (one new ~1 MB screenshot a turn);
//                proxy ÷ forwarding (goal ≤ 1.2×)
//   bytes        a 50-turn computer-use session (Anthropic tool loop, one new
//                ~1.5 MB screenshot a turn) sent through the proxy with its
//                defaults, against the same session sent untouched: the bytes
//                the upstream received
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { agentChat } from './agent-chat.js';
import { SIZES, SMOKE } from './sizes.mjs';

const MB = 1024 * 1024;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const listen = (server) => new Promise((r) => server.listen(0, '127.0.0.1', () => r(`http://127.0.0.1:${server.address().port}`)));

/** An upstream that reads each body whole, counts its bytes and answers a small JSON at once. */
async function upstream() {
  const u = { bytes: 0, requests: 0 };
  u.server = http.createServer((req, res) => {
    req.on('data', (c) => { u.bytes += c.length; });
    req.on('end', () => {
      u.requests++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"msg","type":"message","content":[{"type":"text","text":"ok"}]}');
    });
  });
  u.url = await listen(u.server);
  return u;
}

/**
 * The plain forwarding server: the body read whole and sent on untouched,
 * the answer piped back. A process of its own, as the proxy is, so that
 * neither shares the process of the client and the upstream.
 */
const FORWARDER = `
import http from 'node:http';
const target = process.argv[1];
const agent = new http.Agent({ keepAlive: true });
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const headers = { ...req.headers, host: new URL(target).host, 'content-length': String(body.length) };
    const up = http.request(target + req.url, { method: req.method, headers, agent }, (r) => {
      res.writeHead(r.statusCode, r.headers);
      r.pipe(res);
    });
    up.end(body);
  });
});
server.listen(0, '127.0.0.1', () => process.stderr.write('listening on http://127.0.0.1:' + server.address().port + '\\n'));
`;

/** A server process (`args` to node) that says `listening on http://…:<port>` on stderr. */
async function serverProcess(args, what) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  const port = await new Promise((resolve, reject) => {
    child.stderr.on('data', (d) => {
      err += d;
      const m = /listening on http:\/\/[^:]+:(\d+)/.exec(err);
      if (m) resolve(Number(m[1]));
    });
    child.on('exit', (code) => reject(new Error(`${what} exited ${code}: ${err}`)));
  });
  return { url: `http://127.0.0.1:${port}`, close: () => child.kill('SIGTERM') };
}

/** The forwarding server as a process. */
function forwarder(target) {
  return serverProcess(['--input-type=module', '-e', FORWARDER, target], 'the forwarding server');
}

/** `ctxpack proxy` as a process on a free port, quiet. */
function proxyProcess(root, target, dir, extra = []) {
  return serverProcess([path.join(root, 'bin/ctxpack.cjs'), 'proxy', '--port', '0', '--quiet', '--stash-dir', dir, '--anthropic-upstream', target, '--openai-upstream', target, ...extra], 'ctxpack proxy');
}

const keepAlive = new http.Agent({ keepAlive: true });
/** One POST of `body` (a Buffer) to `url`, answered; its time in ms. */
function post(url, body) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.request(url, { method: 'POST', agent: keepAlive, headers: { 'content-type': 'application/json', 'content-length': body.length, 'x-api-key': 'bench' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(performance.now() - t0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * The proxy against forwarding on one conversation; prints a row and
 * returns it. Turn k's body (`request(k)`, made before the clock starts)
 * is turn k - 1's with the turn's new messages added: its history is
 * re-sent. Both servers receive every turn in order, one after the other
 * (which goes first alternates), so each has seen the history before;
 * turn 0, the whole history sent the first time, is not timed. The
 * figures are the medians over turns 1..turns.
 */
async function timeRow(label, route, proxy, forward, request, turns) {
  const plain = [];
  const through = [];
  for (let k = 0; k <= turns; k++) {
    const body = Buffer.from(request(k));
    const arms = [[forward, plain], [proxy, through]];
    if (k % 2) arms.reverse();
    for (const [server, times] of arms) {
      const ms = await post(`${server.url}${route}`, body);
      if (k > 0) times.push(ms);
    }
  }
  const row = { turns, forwardingMs: median(plain), proxyMs: median(through) };
  row.ratio = row.proxyMs / row.forwardingMs;
  row.addedMs = row.proxyMs - row.forwardingMs;
  console.log(`  ${label.padEnd(46)} ${row.forwardingMs.toFixed(2).padStart(8)} ms ${row.proxyMs.toFixed(2).padStart(9)} ms ${row.addedMs.toFixed(2).padStart(8)} ms ${row.ratio.toFixed(2).padStart(7)}×`);
  return row;
}

/** A 50-turn computer-use tool loop in Anthropic's format: request k holds turns 0..k. */
function computerUse(shots) {
  const messages = [{ role: 'user', content: 'Fill in the form on the screen.' }];
  const requests = [];
  for (let i = 0; i < shots.length; i++) {
    messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `tu_${i}`, name: 'computer', input: { action: 'screenshot' } }] });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `tu_${i}`, content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: shots[i] } }] }] });
    requests.push(JSON.stringify({ model: 'claude-sonnet-5-5', max_tokens: 1024, messages }));
  }
  return requests;
}

/** The proxy rows: prints them and returns the figures. */
export async function benchProxy({ root, imageOfSize, runs }) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ctxpack-bench-proxy-'));
  const up = await upstream();
  const forward = await forwarder(up.url);
  const proxy = await proxyProcess(root, up.url, path.join(dir, 'stash'));
  const out = {};
  try {
    // The screenshot chat's turns send 30 MB each; the agent chat's a few
    // hundred KB, so it has more of them (a steadier median on a busy
    // machine, where one turn in ten may be slowed by another process).
    const turns = SMOKE ? 2 : Math.max(5, runs * 2);
    const chatTurns = SMOKE ? 2 : SIZES.proxy.chatTurns;
    console.log(`\nproxy: the next turn of a conversation (its history re-sent) through ctxpack proxy and through a server forwarding it untouched, both in front of one upstream and warmed by another conversation's turns; median of ${chatTurns} turns of the agent chat, ${turns} of the screenshots (goal: proxy ÷ forwarding ≤ 1.2×)`);
    console.log('                                                  forwarding       proxy      added   proxy ÷ forwarding');
    // The long agent chat (OpenAI format): text, tool calls and placeholders, two new messages a turn.
    const placeholders = Array.from({ length: 20 }, (_, i) => `[Picture:history_${(i + 1).toString(16).padStart(32, '0')}]`);
    const chat = agentChat(SIZES.proxy.chat, placeholders);
    // Both servers warmed first, as a proxy that has been running is: the
    // turns of another conversation of the same shape (its first message
    // differs, so it shares nothing with the one timed), untimed. A fresh
    // process runs its first requests before V8 has optimized the
    // JavaScript and tiered the wasm up: about twice the time a turn takes
    // once warm.
    const other = [{ role: 'system', content: 'You are a reviewing agent.' }, ...chat.slice(1)];
    const warmUps = SMOKE ? 2 : 20;
    for (let k = 0; k < warmUps; k++) {
      const body = Buffer.from(JSON.stringify({ model: 'gpt-4o', messages: [...other.slice(0, other.length - 1 - 4 * (warmUps - k)), other.at(-1)] }));
      for (const server of [forward, proxy]) await post(`${server.url}/v1/chat/completions`, body);
    }
    const chatRequest = (k) => JSON.stringify({ model: 'gpt-4o', messages: [...chat.slice(0, chat.length - 1 - 4 * (chatTurns - k)), chat.at(-1)] });
    out.agentChat = await timeRow(`agent chat, ${chat.length} messages, OpenAI`, '/v1/chat/completions', proxy, forward, chatRequest, chatTurns);
    // 30 screenshots of ~1 MB in a chat, one new a turn (Anthropic format).
    const shots = [];
    const { shots: SHOTS, shotB64, session: TURNS, sessionB64 } = SIZES.proxy;
    for (let i = 0; i < SHOTS + turns; i++) shots.push((await imageOfSize(shotB64, 8100 + i, 'png')).b64);
    const screenshotRequest = (k) => {
      const messages = [];
      for (let i = 0; i < SHOTS + k; i++) messages.push({ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: shots[i] } }, { type: 'text', text: `screen ${i}` }] }, { role: 'assistant', content: `seen ${i}` });
      messages.push({ role: 'user', content: 'What changed?' });
      return JSON.stringify({ model: 'claude-sonnet-5-5', max_tokens: 1024, messages });
    };
    out.screenshots = await timeRow('30 screenshots of ~1 MB, Anthropic', '/v1/messages', proxy, forward, screenshotRequest, turns);
    // Bytes upstream over a 50-turn computer-use session.
    const session = [];
    for (let i = 0; i < TURNS; i++) session.push((await imageOfSize(sessionB64, 9300 + i, 'png')).b64);
    const requests = computerUse(session);
    const sentThrough = async (url) => {
      const before = up.bytes;
      for (const body of requests) await post(`${url}/v1/messages`, Buffer.from(body));
      return up.bytes - before;
    };
    const plainBytes = await sentThrough(forward.url);
    const proxyBytes = await sentThrough(proxy.url);
    out.session = { turns: TURNS, plainBytes, proxyBytes, ratio: proxyBytes / plainBytes };
    console.log(`  bytes upstream, a ${TURNS}-turn computer-use session (one new ~${(sessionB64 * 3 / 4 / MB).toFixed(1)} MB screenshot a turn, Anthropic tool loop):`);
    console.log(`    untouched ${(plainBytes / MB).toFixed(1)} MB; through ctxpack proxy (keep-recent-images 3, slack) ${(proxyBytes / MB).toFixed(1)} MB: ${out.session.ratio.toFixed(3)} of untouched`);
  } finally {
    proxy.close();
    forward.close();
    keepAlive.destroy();
    up.server.closeAllConnections();
    up.server.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}
