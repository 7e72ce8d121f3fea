'use strict';
// Which provider and wire format a request is, by its method and path, and
// where it goes: each provider's public API unless an upstream is given.

/** The providers' public APIs, where requests go by default. */
const DEFAULT_UPSTREAMS = {
  anthropic: 'https://api.anthropic.com',
  openai: 'https://api.openai.com',
  gemini: 'https://generativelanguage.googleapis.com',
};

/** Gemini's generateContent paths: `/v1beta/models/{model}:generateContent` and `:streamGenerateContent`. */
const GEMINI_GENERATE = /^\/(v1(?:beta|alpha)?)\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;
/** Gemini's Interactions API: `POST /v1beta/interactions`. */
const GEMINI_INTERACTIONS = /^\/v1(?:beta|alpha)?\/interactions$/;

/**
 * The compactable route `method` and `url` name: `{provider, format, key,
 * model?}` (`key` is the body's messages field; `model` when the path names
 * it), or null for a request passed through as it is.
 */
function compactableRoute(method, url) {
  if (method !== 'POST') return null;
  const pathname = pathOf(url);
  if (pathname === '/v1/messages') return { provider: 'anthropic', format: 'anthropic', key: 'messages' };
  if (pathname === '/v1/chat/completions') return { provider: 'openai', format: 'openai', key: 'messages' };
  if (pathname === '/v1/responses') return { provider: 'openai', format: 'openai-responses', key: 'input' };
  const g = GEMINI_GENERATE.exec(pathname);
  if (g) return { provider: 'gemini', format: 'gemini', key: 'contents', model: decodeURIComponent(g[2]) };
  if (GEMINI_INTERACTIONS.test(pathname)) return { provider: 'gemini', format: 'gemini-interactions', key: 'input' };
  return null;
}

/** The path of `url` (a request's `req.url`), without its query. */
function pathOf(url) {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/**
 * The provider a request passed through is meant for, so that its upstream
 * is the right one and an error comes in that provider's shape: Gemini's
 * versioned paths (and uploads), Anthropic's headers or paths, else OpenAI.
 */
function providerOf(url, headers) {
  const pathname = pathOf(url);
  if (/^\/(upload\/)?v1(beta|alpha)?\//.test(pathname) && !pathname.startsWith('/v1/')) return 'gemini';
  if (headers['x-goog-api-key'] !== undefined) return 'gemini';
  if (pathname.startsWith('/v1/messages') || headers['anthropic-version'] !== undefined) return 'anthropic';
  return 'openai';
}

/** `upstreams` (provider → base URL) checked and completed with the defaults. */
function upstreamsOf(upstreams = {}) {
  const out = {};
  for (const provider of Object.keys(DEFAULT_UPSTREAMS)) {
    const given = upstreams[provider] ?? DEFAULT_UPSTREAMS[provider];
    let url;
    try {
      url = new URL(given);
    } catch {
      throw new TypeError(`createProxy: upstreams.${provider} is not a URL: ${JSON.stringify(String(given))}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`createProxy: upstreams.${provider} must be http: or https:`);
    out[provider] = url;
  }
  for (const k of Object.keys(upstreams)) {
    if (!Object.hasOwn(DEFAULT_UPSTREAMS, k)) throw new TypeError(`createProxy: unknown upstream ${JSON.stringify(k)} (anthropic, openai or gemini)`);
  }
  return out;
}

/** The upstream URL for `url` on `base`: base's path, then the request's path and query as they are. */
function upstreamUrl(base, url) {
  const prefix = base.pathname.replace(/\/+$/, '');
  return new URL(`${base.protocol}//${base.host}${prefix}${url}`);
}

/** The body of an error `message` from the proxy itself, in `provider`'s own error shape. */
function errorBody(provider, status, message) {
  if (provider === 'anthropic') return { type: 'error', error: { type: 'api_error', message } };
  if (provider === 'gemini') return { error: { code: status, message, status: status === 502 ? 'UNAVAILABLE' : 'INTERNAL' } };
  return { error: { message, type: 'api_error', param: null, code: 'upstream_unreachable' } };
}

module.exports = { DEFAULT_UPSTREAMS, compactableRoute, errorBody, pathOf, providerOf, upstreamUrl, upstreamsOf };
