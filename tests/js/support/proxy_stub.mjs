// What the proxy tests share: a stub upstream (node:http) that records each
// request it receives and answers as the provider does, streaming with
// pauses between events; the proxy started as a real process
// (`ctxpack proxy`); and distinct screenshots.
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const cli = path.join(root, 'bin/ctxpack.cjs');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A distinct PNG screenshot number `i` (a solid colour with a band), as base64. */
export async function screenshot(i, width = 96, height = 64) {
  const band = Buffer.alloc(width * 8 * 3, (i * 37) % 256);
  const png = await sharp({ create: { width, height, channels: 3, background: { r: i % 256, g: (i * 7) % 256, b: (i * 13) % 256 } } })
    .composite([{ input: band, raw: { width, height: 8, channels: 3 }, top: (i * 5) % (height - 8), left: 0 }])
    .png().toBuffer();
  return png.toString('base64');
}

/** Server-sent events as the providers write them. */
const sse = (events) => events.map(([event, data]) => `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);

let ids = 0;
/** The events (or JSON body) each route answers with, saying `text`. */
export const ANSWERS = {
  anthropic(body, text) {
    const id = `msg_${++ids}`;
    const message = { id, type: 'message', role: 'assistant', model: body.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 0 } };
    if (!body.stream) return { ...message, content: [{ type: 'text', text }], stop_reason: 'end_turn', usage: { input_tokens: 10, output_tokens: 3 } };
    const half = Math.ceil(text.length / 2);
    return sse([
      ['message_start', { type: 'message_start', message }],
      ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: text.slice(0, half) } }],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: text.slice(half) } }],
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
      ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 3 } }],
      ['message_stop', { type: 'message_stop' }],
    ]);
  },
  chat(body, text) {
    const base = { id: `chatcmpl-${++ids}`, created: 1, model: body.model };
    if (!body.stream) return { ...base, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, finish_reason: 'stop', logprobs: null }], usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 } };
    const chunk = (delta, finish) => ({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] });
    return sse([[null, chunk({ role: 'assistant', content: '' }, null)], [null, chunk({ content: text }, null)], [null, chunk({}, 'stop')], [null, '[DONE]']]);
  },
  responses(body, text) {
    const id = `resp_${++ids}`;
    const item = { type: 'message', id: `msg_${ids}`, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] };
    const response = (status, output) => ({ id, object: 'response', created_at: 1, status, model: body.model, output, parallel_tool_calls: true, tool_choice: 'auto', tools: [], usage: { input_tokens: 10, output_tokens: 3, total_tokens: 13, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } } });
    if (!body.stream) return response('completed', [item]);
    let n = 0;
    const ev = (type, data) => [type, { type, sequence_number: n++, ...data }];
    return sse([
      ev('response.created', { response: response('in_progress', []) }),
      ev('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } }),
      ev('response.output_text.delta', { item_id: item.id, output_index: 0, content_index: 0, delta: text }),
      ev('response.output_item.done', { output_index: 0, item }),
      ev('response.completed', { response: response('completed', [item]) }),
    ]);
  },
  gemini(body, text, stream) {
    const answer = (t, done) => ({ candidates: [{ content: { role: 'model', parts: [{ text: t }] }, index: 0, ...(done ? { finishReason: 'STOP' } : {}) }], usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 3, totalTokenCount: 13 }, modelVersion: 'stub' });
    if (!stream) return answer(text, true);
    const half = Math.ceil(text.length / 2);
    return [answer(text.slice(0, half), false), answer(text.slice(half), true)].map((d) => `data: ${JSON.stringify(d)}\r\n\r\n`);
  },
};

/** The answer kind of a request path. */
function kindOf(url) {
  if (url.startsWith('/v1/messages')) return 'anthropic';
  if (url.startsWith('/v1/chat/completions')) return 'chat';
  if (url.startsWith('/v1/responses')) return 'responses';
  if (url.includes(':streamGenerateContent')) return 'gemini-stream';
  if (url.includes(':generateContent')) return 'gemini';
  return null;
}

/**
 * A stub upstream on a free port: `requests` holds each one received
 * (`{method, url, headers, rawHeaders, body: Buffer}`). It answers each
 * compactable route as the provider does (text `stub answer N`), streamed
 * events `pause` ms apart; `refuse` (a list of `{status, body}`) answers the
 * next requests with those refusals first; `respond(req, body, res)`, when
 * it returns true, has answered itself. `sent` counts streamed events written.
 */
export async function startStub({ pause = 0 } = {}) {
  const stub = { requests: [], refuse: [], respond: null, sent: 0, gate: null };
  const server = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = Buffer.concat(chunks);
    const record = { method: req.method, url: req.url, headers: req.headers, rawHeaders: req.rawHeaders, body, answer: '' };
    stub.requests.push(record);
    if (stub.respond && (await stub.respond(req, body, res))) return;
    const refusal = stub.refuse.shift();
    if (refusal) {
      res.writeHead(refusal.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(refusal.body));
      return;
    }
    const kind = kindOf(req.url);
    if (!kind) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"not found"}');
      return;
    }
    let json;
    try {
      json = JSON.parse(body.toString('utf8'));
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"the body is not JSON"}}');
      return;
    }
    const text = `stub answer ${stub.requests.length}`;
    const out = kind.startsWith('gemini') ? ANSWERS.gemini(json, text, kind === 'gemini-stream') : ANSWERS[kind](json, text);
    if (!Array.isArray(out)) {
      record.answer = JSON.stringify(out);
      res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_${stub.requests.length}` });
      res.end(record.answer);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (let i = 0; i < out.length; i++) {
      if (i > 0 && pause) await sleep(pause);
      if (i === out.length - 1 && stub.gate) await stub.gate;
      res.write(out[i]);
      record.answer += out[i];
      stub.sent++;
    }
    res.end();
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  stub.port = server.address().port;
  stub.url = `http://127.0.0.1:${stub.port}`;
  stub.close = () => new Promise((r) => { server.closeAllConnections(); server.close(r); });
  return stub;
}

/**
 * `ctxpack proxy` started with `args` as a real process; resolves once it
 * listens: `{url, port, log(), stop()}`, `log()` its stderr so far.
 */
export async function startProxy(args, env = {}) {
  const child = spawn(process.execPath, [cli, 'proxy', '--port', '0', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const port = await new Promise((resolve, reject) => {
    const check = () => {
      const m = /listening on http:\/\/[^:]+:(\d+)/.exec(stderr);
      if (m) resolve(Number(m[1]));
    };
    child.stderr.on('data', check);
    child.on('exit', (code) => reject(new Error(`ctxpack proxy exited (${code}): ${stderr}`)));
  });
  const exited = new Promise((r) => child.on('exit', r));
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    log: () => stderr,
    /** The log lines about requests so far. */
    lines: () => stderr.split('\n').filter((l) => l.startsWith('ctxpack proxy: ') && !l.includes('listening on') || l.startsWith('{')),
    /** The log lines once `count` of them hold `fragment` (the log is written as the answer starts: wait for it). */
    async waitLines(fragment, count = 1) {
      for (let i = 0; i < 200; i++) {
        const found = this.lines().filter((l) => l.includes(fragment));
        if (found.length >= count) return found;
        await sleep(10);
      }
      throw new Error(`no ${count} log lines with ${fragment}: ${stderr}`);
    },
    stop: async () => { child.kill('SIGTERM'); await exited; },
  };
}
