'use strict';
// ctxpack/proxy: a Node `(req, res)` handler in front of the Anthropic,
// OpenAI and Gemini APIs. A request to a route it knows has its body
// compacted (history images → placeholders, originals in the stash) and
// fitted to the body's own model; everything else about it — method, path,
// query, every header — goes upstream as it came, only `content-length`
// recomputed (and `host`, the upstream's). The answer streams back as it
// arrives. A refusal for size or images is repaired and retried once before
// any byte reaches the client. What it cannot read passes through byte for
// byte.
const http = require('node:http');
const https = require('node:https');
const ctxpack = require('../node/index.js');
const { formatLogLine } = require('./log.cjs');
const { topLevelModel } = require('./model.cjs');
const { compactableRoute, errorBody, pathOf, providerOf, upstreamUrl, upstreamsOf } = require('./routes.cjs');
const { readError } = require('./refusal.cjs');
const { offloadFor, withFilesBeta } = require('./offload.cjs');

/**
 * The default of `keepRecentImages`: 3, the screenshots Anthropic's
 * computer-use reference agent keeps (`only_n_most_recent_images=3`). With
 * the default slack up to 7 more ride along, so the prompt cache keeps its
 * prefix; an agent's newest tool results are never touched.
 */
const DEFAULT_KEEP_RECENT_IMAGES = 3;

/** Request headers not passed on: hop-by-hop ones, and the two the proxy sets. */
const DROPPED_REQUEST = new Set(['host', 'content-length', 'connection', 'keep-alive', 'transfer-encoding', 'proxy-connection']);
/** Response headers not passed on: hop-by-hop (Node frames the answer itself). */
const DROPPED_RESPONSE = new Set(['connection', 'keep-alive', 'transfer-encoding']);

/** `rawHeaders` (name, value, …) as an object keeping each name's case, without `dropped`. */
function headerObject(rawHeaders, dropped) {
  const out = {};
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i];
    if (dropped.has(name.toLowerCase())) continue;
    const had = out[name];
    out[name] = had === undefined ? rawHeaders[i + 1] : [].concat(had, rawHeaders[i + 1]);
  }
  return out;
}

/** `rawHeaders` without `dropped`, as a flat list for `writeHead`. */
function headerList(rawHeaders, dropped) {
  const out = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (!dropped.has(rawHeaders[i].toLowerCase())) out.push(rawHeaders[i], rawHeaders[i + 1]);
  }
  return out;
}

/** The whole of a readable stream, as the chunks it arrived in (never joined: compaction and sending take them as they are). */
function readChunks(stream) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    stream.on('data', (c) => chunks.push(c));
    stream.on('end', () => resolve(chunks));
    stream.on('error', reject);
  });
}

/** The bytes of `chunks` (Buffers or Uint8Arrays), as one Buffer. */
function joinedBuffer(chunks) {
  const one = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
  return Buffer.isBuffer(one) ? one : Buffer.from(one.buffer, one.byteOffset, one.length);
}

/** The whole of a readable stream, as one Buffer. */
async function readAll(stream) {
  return joinedBuffer(await readChunks(stream));
}

/** How many bytes `chunks` hold. */
const lengthOf = (chunks) => chunks.reduce((n, c) => n + c.length, 0);

/**
 * A Node `(req, res)` handler proxying to the providers' APIs with every
 * request body compacted. See `index.d.ts` for the options.
 */
function createProxy(options = {}) {
  const upstreams = upstreamsOf(options.upstreams);
  const keepRecentImages = options.keepRecentImages ?? DEFAULT_KEEP_RECENT_IMAGES;
  if (!Number.isInteger(keepRecentImages) || keepRecentImages < 0) throw new TypeError('createProxy: keepRecentImages must be a whole number ≥ 0');
  const log = typeof options.log === 'function' ? options.log : options.log === false ? () => {} : (entry) => process.stderr.write(`${formatLogLine(entry)}\n`);
  /** The stash, once given or opened; `stashOf()` resolves to it (a memory stash opened on first use). */
  let stash = options.stash ?? null;
  let opening = null;
  const stashOf = () => (stash !== null ? Promise.resolve(stash) : (opening ??= ctxpack.Stash.open({ backend: 'memory' }).then((s) => (stash = s))));
  const agents = {
    'http:': new http.Agent({ keepAlive: true }),
    'https:': new https.Agent({ keepAlive: true }),
  };
  const compactOptions = { keepRecentImages, ...(options.slack !== undefined ? { slack: options.slack } : {}) };
  const fit = options.fit !== false;

  /**
   * Sends `body` (a Buffer, the chunks to write in order, or the client's
   * request itself to pipe) upstream; resolves to the response.
   */
  function send(req, target, body, filesBeta = false) {
    return new Promise((resolve, reject) => {
      let headers = headerObject(req.rawHeaders, DROPPED_REQUEST);
      if (filesBeta) headers = withFilesBeta(headers);
      if (Array.isArray(body)) headers['content-length'] = String(lengthOf(body));
      else if (Buffer.isBuffer(body)) headers['content-length'] = String(body.length);
      else if (req.headers['content-length'] !== undefined) headers['content-length'] = req.headers['content-length'];
      else if (req.headers['transfer-encoding'] !== undefined) headers['transfer-encoding'] = req.headers['transfer-encoding'];
      const client = target.protocol === 'https:' ? https : http;
      const up = client.request(target, { method: req.method, headers, agent: agents[target.protocol] }, resolve);
      up.on('error', reject);
      if (Array.isArray(body)) {
        // The chunks in one write, with the headers.
        up.cork();
        for (const chunk of body) up.write(chunk);
        up.end();
      } else if (Buffer.isBuffer(body)) up.end(body);
      else body.pipe(up);
    });
  }

  /**
   * Streams `upRes` to `res` as it arrives. The headers of an answer of
   * unknown length (a stream of events) go at once, before its first
   * event; those of an answer of known length go with its first bytes.
   */
  function stream(upRes, res) {
    res.writeHead(upRes.statusCode, upRes.statusMessage, headerList(upRes.rawHeaders, DROPPED_RESPONSE));
    if (upRes.headers['content-length'] === undefined) res.flushHeaders();
    upRes.pipe(res);
    upRes.on('error', () => res.destroy());
    // A client gone before the end: the upstream's answer is not read on.
    res.on('close', () => { if (!upRes.complete) upRes.destroy(); });
  }

  /** Answers the client with a buffered upstream response. */
  function replay(upRes, bytes, res) {
    const list = headerList(upRes.rawHeaders, new Set([...DROPPED_RESPONSE, 'content-length']));
    res.writeHead(upRes.statusCode, upRes.statusMessage, [...list, 'content-length', String(bytes.length)]);
    res.end(bytes);
  }

  /** The proxy's own 502, in `provider`'s error shape, naming the upstream. */
  function unreachable(res, provider, target, error) {
    const message = `ctxpack proxy: the upstream ${target.origin} could not be reached (${error.code ?? error.message})`;
    const bytes = Buffer.from(JSON.stringify(errorBody(provider, 502, message)));
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json', 'content-length': bytes.length });
    res.end(bytes);
  }

  /** A request passed through as it is, its body streamed. */
  async function passThrough(req, res, entry, provider, body) {
    const target = upstreamUrl(upstreams[provider], req.url);
    let upRes;
    try {
      upRes = await send(req, target, body ?? req);
    } catch (e) {
      entry.status = 502;
      entry.error = e.code ?? e.message;
      unreachable(res, provider, target, e);
      return;
    }
    entry.status = upRes.statusCode;
    stream(upRes, res);
  }

  /**
   * Compacts `raw` (the body's bytes, as the chunks they arrived in) for
   * `route`; `{failed}` when it cannot (the body then passes through as it
   * came). Given as bytes, the body is compared with the one before it: a
   * conversation's next turn crosses into wasm only from where the two
   * differ, and its bytes are never joined but for those.
   */
  async function compact(raw, route, model, req) {
    const offload = options.offload ? offloadFor(route, req.headers, upstreams[route.provider], agents[upstreams[route.provider].protocol]) : null;
    try {
      // Once the stash is open, the call is made in this same turn.
      return await ctxpack.compactRequestBody(raw, {
        ...compactOptions, stash: stash ?? await stashOf(), format: route.format, ...(fit && model !== undefined ? { model } : {}), ...(offload ? { offload } : {}),
      });
    } catch (e) {
      // Whatever went wrong (a body ctxpack cannot read, a stash that is down), the request goes on as it came.
      return { failed: e };
    }
  }

  /** The retry after a refusal `errorText` of the request `sent` (the chunks sent); null when it cannot be repaired. */
  async function repair(sent, route, model, errorText, entry) {
    let request;
    try {
      request = JSON.parse(joinedBuffer(sent).toString('utf8'));
    } catch {
      return null;
    }
    const messages = request?.[route.key];
    if (!Array.isArray(messages) || model === undefined) return null;
    try {
      const { messages: repaired } = await ctxpack.repairContext(messages, errorText, { model, stash: await stashOf(), format: route.format });
      return Buffer.from(JSON.stringify({ ...request, [route.key]: repaired }));
    } catch (e) {
      entry.repairFailed = e.code ?? e.message;
      return null;
    }
  }

  async function handle(req, res) {
    const started = performance.now();
    const provider = providerOf(req.url, req.headers);
    const route = compactableRoute(req.method, req.url);
    const entry = { method: req.method, path: pathOf(req.url), provider, compacted: false, addedMs: 0 };
    if (!route || req.headers['content-encoding'] !== undefined) {
      if (route) entry.note = `content-encoding ${req.headers['content-encoding']}`;
      entry.bytesIn = Number(req.headers['content-length']) || undefined;
      entry.addedMs = performance.now() - started;
      await passThrough(req, res, entry, provider);
      return entry;
    }
    const raw = await readChunks(req);
    const t0 = performance.now();
    entry.bytesIn = lengthOf(raw);
    const model = route.model ?? topLevelModel(raw);
    if (model !== undefined) entry.model = model;
    const result = await compact(raw, route, model, req);
    if (result.failed) {
      entry.note = result.failed.code ? `${result.failed.code}${result.failed.path ? ` at ${result.failed.path}` : ''}` : result.failed.message;
      entry.addedMs = performance.now() - t0;
      await passThrough(req, res, entry, route.provider, raw);
      return entry;
    }
    const { report } = result;
    // The chunks received, or the pieces of the body with the changed messages written.
    const out = result.body;
    Object.assign(entry, {
      compacted: true, bytesOut: lengthOf(out), stashed: report.stashed, kept: report.kept, offloaded: report.offloaded ?? 0, uploaded: report.uploaded ?? 0,
      firstChangedIndex: report.firstChangedIndex ?? null,
    });
    // Images that stayed inline because their stash write (or upload) failed, and the first reason.
    if (report.failed) Object.assign(entry, { failed: report.failed, failure: report.failures?.[0]?.code ?? 'unknown' });
    const target = upstreamUrl(upstreams[route.provider], req.url);
    let added = performance.now() - t0;
    const filesBeta = route.format === 'anthropic' && (report.offloaded ?? 0) > 0;
    let upRes;
    try {
      upRes = await send(req, target, out, filesBeta);
      if (upRes.statusCode >= 400) {
        const bytes = await readAll(upRes);
        const errorText = await readError(bytes, upRes.headers['content-encoding']);
        const refusal = errorText !== null ? ctxpack.parseProviderError(errorText) : null;
        const t1 = performance.now();
        const retry = refusal ? await repair(out, route, model, errorText, entry) : null;
        added += performance.now() - t1;
        if (retry === null) {
          entry.status = upRes.statusCode;
          entry.addedMs = added;
          replay(upRes, bytes, res);
          return entry;
        }
        entry.repaired = { status: upRes.statusCode, kind: refusal.kind };
        entry.bytesOut = retry.length;
        upRes = await send(req, target, retry, filesBeta);
      }
    } catch (e) {
      entry.status = 502;
      entry.error = e.code ?? e.message;
      entry.addedMs = added;
      unreachable(res, route.provider, target, e);
      return entry;
    }
    entry.status = upRes.statusCode;
    entry.addedMs = added;
    stream(upRes, res);
    return entry;
  }

  const handler = (req, res) => {
    handle(req, res).then(
      (entry) => log(entry),
      (e) => {
        if (!res.headersSent) {
          const provider = providerOf(req.url, req.headers);
          const bytes = Buffer.from(JSON.stringify(errorBody(provider, 500, `ctxpack proxy: ${e.message}`)));
          res.writeHead(500, { 'content-type': 'application/json', 'content-length': bytes.length });
          res.end(bytes);
        } else res.destroy();
        log({ method: req.method, path: pathOf(req.url), compacted: false, status: 500, error: e.message, addedMs: 0 });
      },
    );
  };
  handler.close = () => {
    agents['http:'].destroy();
    agents['https:'].destroy();
  };
  return handler;
}

module.exports = { createProxy, formatLogLine, DEFAULT_KEEP_RECENT_IMAGES };
