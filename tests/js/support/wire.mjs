// What the wire tests share: the fixture images, a transport that records
// each request body and answers with the provider's next scripted reply, and
// the check that every base64 payload of a test image in a body sits in that
// provider's own image shape and decodes to the original bytes.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';

const md5 = (b) => createHash('md5').update(b).digest('hex');

/** A fixture image: its bytes, base64, MIME type, md5 of the bytes and a distinctive base64 slice. */
function fixture(name, mime) {
  const bytes = readFileSync(new URL(`../../fixtures/${name}`, import.meta.url));
  const b64 = bytes.toString('base64');
  // A slice from the middle: no other image (nor any header) holds it.
  const probe = b64.slice(Math.floor(b64.length / 2), Math.floor(b64.length / 2) + 40);
  return { name, mime, bytes, b64, md5: md5(bytes), id: md5(b64), dataUrl: `data:${mime};base64,${b64}`, probe };
}

/** The three images the wire tests send: an older one, the newest one, and a third. */
export const IMAGES = {
  chart: fixture('chart.png', 'image/png'),
  photo: fixture('photo.jpg', 'image/jpeg'),
  shot: fixture('shot.webp', 'image/webp'),
};

/** Every string in `value` containing `probe`, with its path (keys and indexes) from the root. */
function occurrences(value, probe, path = [], out = []) {
  if (typeof value === 'string') {
    if (value.includes(probe)) out.push(path);
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => occurrences(v, probe, [...path, i], out));
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) occurrences(v, probe, [...path, k], out);
  }
  return out;
}

/** The value at `path` in `root`, and each object on the way. */
function walk(root, path) {
  const chain = [root];
  for (const k of path) chain.push(chain.at(-1)?.[k]);
  return chain;
}

/** True when `path` is `pattern`, `#` standing for any array index. */
function matches(path, pattern) {
  return path.length === pattern.length && pattern.every((p, i) => (p === '#' ? Number.isInteger(path[i]) : p === path[i]));
}

/** The MIME type and base64 of a data URL. */
function fromDataUrl(url) {
  const m = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return m ? { mime: m[1], b64: m[2] } : null;
}

/**
 * Each API's image shapes: given a request body and the path of a string
 * holding base64, the image it is (`{mime, b64, where}`) when the string
 * sits in one of the API's image shapes, else null.
 */
export const SHAPES = {
  /** Chat Completions: `image_url.url` data URL in a user message. */
  'chat-completions'(body, path) {
    if (!matches(path, ['messages', '#', 'content', '#', 'image_url', 'url'])) return null;
    const [, , message, , part, , url] = walk(body, path);
    if (message.role !== 'user' || part.type !== 'image_url') return null;
    const image = fromDataUrl(url);
    return image && { ...image, where: 'user' };
  },
  /** Responses: `input_image.image_url` data URL in a user message or a `function_call_output`. */
  responses(body, path) {
    const inMessage = matches(path, ['input', '#', 'content', '#', 'image_url']);
    const inOutput = matches(path, ['input', '#', 'output', '#', 'image_url']);
    if (!inMessage && !inOutput) return null;
    const [, , item, , part, url] = walk(body, path);
    if (part.type !== 'input_image') return null;
    if (inMessage && item.role !== 'user') return null;
    if (inOutput && item.type !== 'function_call_output') return null;
    const image = fromDataUrl(url);
    return image && { ...image, where: inMessage ? 'user' : 'tool' };
  },
  /** Anthropic: `source.data` of a base64 image block in a user message, or in its `tool_result`. */
  anthropic(body, path) {
    const direct = matches(path, ['messages', '#', 'content', '#', 'source', 'data']);
    const inResult = matches(path, ['messages', '#', 'content', '#', 'content', '#', 'source', 'data']);
    if (!direct && !inResult) return null;
    const chain = walk(body, path);
    const message = chain[2];
    const block = chain.at(-3);
    const source = chain.at(-2);
    if (message.role !== 'user' || block.type !== 'image' || source.type !== 'base64') return null;
    if (inResult && chain[4].type !== 'tool_result') return null;
    return { mime: source.media_type, b64: source.data, where: direct ? 'user' : 'tool' };
  },
  /** Gemini: `inlineData.data` of a part, or of a `functionResponse`'s own `parts`. */
  gemini(body, path) {
    const direct = matches(path, ['contents', '#', 'parts', '#', 'inlineData', 'data']);
    const inResponse = matches(path, ['contents', '#', 'parts', '#', 'functionResponse', 'parts', '#', 'inlineData', 'data']);
    if (!direct && !inResponse) return null;
    const chain = walk(body, path);
    const blob = chain.at(-2);
    if (chain[2].role !== 'user') return null;
    return { mime: blob.mimeType, b64: blob.data, where: direct ? 'user' : 'tool' };
  },
  /**
   * Interactions: `data` of an image content in a `user_input` step, or in
   * the `result` of a `function_result` step or of a `function_result`
   * block in a `user_input` step (as the AI SDK sends it).
   */
  interactions(body, path) {
    const direct = matches(path, ['input', '#', 'content', '#', 'data']);
    const inStep = matches(path, ['input', '#', 'result', '#', 'data']);
    const inBlock = matches(path, ['input', '#', 'content', '#', 'result', '#', 'data']);
    if (!direct && !inStep && !inBlock) return null;
    const chain = walk(body, path);
    const step = chain[2];
    const image = chain.at(-2);
    if (image.type !== 'image') return null;
    if (inStep && step.type !== 'function_result') return null;
    if ((direct || inBlock) && step.type !== 'user_input') return null;
    if (inBlock && chain[4].type !== 'function_result') return null;
    return { mime: image.mime_type, b64: image.data, where: direct ? 'user' : 'tool' };
  },
};

/**
 * Checks `body` as the API `api` receives it: every occurrence of each test
 * image's base64 is inside one of that API's image shapes, and each such
 * image decodes to the original bytes under the right MIME type. `expect`
 * says how many times each image appears (`{chart: 1, photo: 0}`; images not
 * named must not appear), and optionally where (`{chart: ['tool']}`).
 * Returns where each image was found.
 */
export function assertImagesOnWire(api, body, expect, where = {}) {
  const shape = SHAPES[api];
  const found = {};
  for (const [key, img] of Object.entries(IMAGES)) {
    const paths = occurrences(body, img.probe);
    found[key] = [];
    for (const path of paths) {
      const image = shape(body, path);
      assert.ok(image, `${api}: ${img.name}'s base64 at ${path.join('.')} is outside the API's image shape`);
      assert.equal(md5(Buffer.from(image.b64, 'base64')), img.md5, `${api}: the image at ${path.join('.')} decodes to ${img.name}`);
      assert.equal(image.mime, img.mime, `${api}: ${img.name}'s MIME type at ${path.join('.')}`);
      found[key].push(image.where);
    }
    assert.equal(found[key].length, expect[key] ?? 0, `${api}: how many times ${img.name} is sent`);
    if (where[key]) assert.deepEqual(found[key], where[key], `${api}: where ${img.name} is sent`);
  }
  return found;
}

/** A JSON response. */
const json = (value) => new Response(JSON.stringify(value), { status: 200, headers: { 'content-type': 'application/json' } });

/**
 * A `fetch` that records each request's JSON body, and its URL and every
 * header (names in lower case) in `requests`, and answers with the next of
 * `replies` (the last one repeats).
 */
export function capturingFetch(replies) {
  const bodies = [];
  const requests = [];
  const fetch = async (url, init) => {
    const text = typeof init?.body === 'string' ? init.body : await new Response(init?.body).text();
    bodies.push(JSON.parse(text));
    requests.push({ url: String(url), headers: Object.fromEntries(new Headers(init?.headers)) });
    return json(replies[Math.min(bodies.length - 1, replies.length - 1)]);
  };
  return { fetch, bodies, requests };
}

/** Anthropic's Files API beta: a Messages request that references a file needs it. */
export const ANTHROPIC_FILES_BETA = 'files-api-2025-04-14';

/** Asserts that `headers` (as `capturingFetch` records them) ask for Anthropic's Files API beta. */
export function assertFilesBeta(headers, what) {
  const betas = (headers['anthropic-beta'] ?? '').split(',').map((b) => b.trim());
  assert.ok(betas.includes(ANTHROPIC_FILES_BETA), `${what}: anthropic-beta is ${JSON.stringify(headers['anthropic-beta'])}, without ${ANTHROPIC_FILES_BETA}`);
}

/**
 * An HTTP server on 127.0.0.1 that records each request's JSON body and
 * answers with the next of `replies`, for a client that takes a base URL but
 * no `fetch`. `close()` stops it.
 */
export async function capturingServer(replies) {
  const bodies = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(replies[Math.min(bodies.length - 1, replies.length - 1)]));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}`, bodies, close: () => new Promise((r) => server.close(r)) };
}

/** Each API's reply: a call of `get_history_image` for `imageId`, or a final text. */
export const REPLIES = {
  'chat-completions': {
    call: (imageId) => ({
      id: 'chatcmpl-1', object: 'chat.completion', created: 0, model: 'gpt-4o',
      choices: [{ index: 0, finish_reason: 'tool_calls', logprobs: null, message: { role: 'assistant', content: null, refusal: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_history_image', arguments: JSON.stringify({ image_md5: imageId }) } }] } }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    }),
    text: (text) => ({
      id: 'chatcmpl-2', object: 'chat.completion', created: 0, model: 'gpt-4o',
      choices: [{ index: 0, finish_reason: 'stop', logprobs: null, message: { role: 'assistant', content: text, refusal: null } }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    }),
  },
  responses: {
    call: (imageId) => ({
      id: 'resp_1', object: 'response', created_at: 0, model: 'gpt-4o', status: 'completed', error: null, incomplete_details: null,
      output: [{ type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'get_history_image', arguments: JSON.stringify({ image_md5: imageId }), status: 'completed' }],
      parallel_tool_calls: true, tool_choice: 'auto', tools: [],
      usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } },
    }),
    text: (text) => ({
      id: 'resp_2', object: 'response', created_at: 0, model: 'gpt-4o', status: 'completed', error: null, incomplete_details: null,
      output: [{ type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] }],
      parallel_tool_calls: true, tool_choice: 'auto', tools: [],
      usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } },
    }),
  },
  anthropic: {
    call: (imageId) => ({
      id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_history_image', input: { image_md5: imageId } }],
      stop_reason: 'tool_use', stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 },
    }),
    text: (text) => ({
      id: 'msg_2', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 },
    }),
  },
  interactions: {
    call: (imageId) => ({
      id: 'int_1', status: 'requires_action', model: 'gemini-3-flash-preview',
      steps: [{ type: 'function_call', id: 'fc_1', name: 'get_history_image', arguments: { image_md5: imageId } }],
      usage: { total_input_tokens: 1, total_output_tokens: 1, total_tokens: 2 },
    }),
    text: (text) => ({
      id: 'int_2', status: 'completed', model: 'gemini-3-flash-preview',
      steps: [{ type: 'model_output', content: [{ type: 'text', text }] }],
      usage: { total_input_tokens: 1, total_output_tokens: 1, total_tokens: 2 },
    }),
  },
  gemini: {
    call: (imageId) => ({
      candidates: [{ index: 0, content: { role: 'model', parts: [{ functionCall: { name: 'get_history_image', args: { image_md5: imageId } } }] }, finishReason: 'STOP' }],
      usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
    }),
    text: (text) => ({
      candidates: [{ index: 0, content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP' }],
      usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
    }),
  },
};
