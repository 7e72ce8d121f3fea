'use strict';
// `offload` in the proxy: the history images the model still sees go to the
// provider's Files API once, uploaded with the credentials of the request
// itself, and are sent by reference. Anthropic (`/v1/files`, beta
// `files-api-2025-04-14`, which the request then carries) and OpenAI's
// Responses API (`/v1/files`, purpose `vision`); Chat Completions and
// Gemini take no image by reference here, and go inline.
const http = require('node:http');
const https = require('node:https');
const { createHash, randomUUID } = require('node:crypto');
const { upstreamUrl } = require('./routes.cjs');

/** Anthropic's Files API beta, which a request referencing a file must name. */
const FILES_BETA = 'files-api-2025-04-14';
/** The credential headers an upload takes from the request. */
const CREDENTIALS = ['x-api-key', 'authorization', 'anthropic-version', 'openai-organization', 'openai-project'];

/**
 * The account a request's files belong to: a digest of its credentials,
 * never the key itself, so that files uploaded with one key are never
 * referenced with another.
 */
function accountOf(headers) {
  const key = headers['x-api-key'] ?? headers.authorization ?? '';
  return createHash('sha256').update(`ctxpack-proxy-account\0${key}`).digest('hex').slice(0, 32);
}

/** POSTs a multipart form of `fields` and one file; resolves to the answer's JSON. */
function postForm(target, headers, fields, file, agent) {
  const boundary = `ctxpack-${randomUUID()}`;
  const parts = [];
  for (const [name, value] of Object.entries(fields)) parts.push(Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  parts.push(Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="${file.name}"\r\ncontent-type: ${file.type}\r\n\r\n`), Buffer.from(file.data), Buffer.from(`\r\n--${boundary}--\r\n`));
  const body = Buffer.concat(parts);
  return new Promise((resolve, reject) => {
    const client = target.protocol === 'https:' ? https : http;
    const req = client.request(target, { method: 'POST', agent, headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': body.length } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode >= 300) return reject(new Error(`the Files API answered ${res.statusCode}: ${text.slice(0, 200)}`));
        try {
          resolve(JSON.parse(text));
        } catch {
          reject(new Error('the Files API answered with no JSON'));
        }
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * The `offload` option of `compactRequestBody` for a request on `route`
 * with `headers`, or null where the route takes no reference. `uploads`
 * counts the uploads made.
 */
function offloadFor(route, headers, base, agent) {
  if (route.format !== 'anthropic' && route.format !== 'openai-responses') return null;
  const given = {};
  for (const name of CREDENTIALS) if (headers[name] !== undefined) given[name] = headers[name];
  const target = upstreamUrl(base, '/v1/files');
  if (route.format === 'anthropic') {
    const beta = headers['anthropic-beta'] ? `${headers['anthropic-beta']},${FILES_BETA}` : FILES_BETA;
    given['anthropic-beta'] = beta;
  }
  const fields = route.format === 'anthropic' ? {} : { purpose: 'vision' };
  return {
    provider: route.provider,
    account: accountOf(headers),
    async upload({ data, mediaType, md5 }) {
      const ext = mediaType.split('/')[1] ?? 'bin';
      const answer = await postForm(target, given, fields, { name: `history_${md5}.${ext}`, type: mediaType, data }, agent);
      return { id: answer.id, ...(answer.expires_at ? { expiresAt: answer.expires_at * 1000 } : {}) };
    },
  };
}

/** The request's `anthropic-beta` with the Files API beta added (it references files). */
function withFilesBeta(headers) {
  const key = Object.keys(headers).find((k) => k.toLowerCase() === 'anthropic-beta');
  const had = key === undefined ? undefined : headers[key];
  if (had !== undefined && String(had).split(',').map((s) => s.trim()).includes(FILES_BETA)) return headers;
  const out = { ...headers };
  if (key !== undefined) delete out[key];
  out[key ?? 'anthropic-beta'] = had === undefined ? FILES_BETA : `${had},${FILES_BETA}`;
  return out;
}

module.exports = { FILES_BETA, accountOf, offloadFor, withFilesBeta };
