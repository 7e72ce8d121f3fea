// What the adapters compact with. A model call's prompt is made anew for
// every call (the AI SDK converts its messages each time; the LangChain
// middleware hands over new wire objects), so compactContext's memory of
// message objects never finds them. A prompt of plain JSON values without
// inline payloads goes as JSON text instead (compactRequestBody), whose
// memory finds each message by its text: a long agent chat then costs what
// is new. A prompt holding bytes, URLs, inline images or long base64 (or,
// when tool results are sanitized, long JSON text) goes as objects, where a
// payload or tool text sent before is not read or hashed again.
import { compactContext, compactRequestBody } from 'ctxpack';

/** Keys whose string may be an image payload (each format's). */
const PAYLOAD_KEYS = new Set(['data', 'image', 'url', 'image_url', 'images', 'blob', 'file_data', 'uri']);

/** How deep the library reads; deeper prompts go as objects (which refuse them by path). */
const MAX_DEPTH = 256;

/** Strings this long may be payloads, or tool texts sanitizing searches. */
const LONG = 1024;

/** Whether `s` begins as base64 (its first 128 characters). */
const base64Head = (s) => /^[A-Za-z0-9+/=]*$/.test(s.slice(0, 128));

/**
 * Whether `value` is made of plain objects, arrays, strings, booleans,
 * null and finite numbers only, with no `data:` URL, no string under a
 * payload key but an http(s) URL, no long string that begins as base64
 * and, when tool results are sanitized (`json`), no long string that may
 * be JSON text: what compactContext's memories find again (a payload, a
 * sanitized tool text) goes as objects.
 */
function plainWithoutPayloads(value, key, depth, json) {
  if (value === null || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value === 'string') {
    if (value.length > 5 && value.slice(0, 5).toLowerCase() === 'data:') return false;
    if (key !== undefined && PAYLOAD_KEYS.has(key) && value.length >= 64 && !/^https?:/i.test(value)) return false;
    if (value.length < LONG) return true;
    return !base64Head(value) && !(json && /^\s*[{[]/.test(value));
  }
  if (typeof value !== 'object' || depth > MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    const itemKey = key === 'images' ? key : undefined;
    return value.every((v) => plainWithoutPayloads(v, itemKey, depth + 1, json));
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const k in value) {
    const v = value[k];
    if (v !== undefined && !plainWithoutPayloads(v, k, depth + 1, json)) return false;
  }
  return true;
}

/**
 * `compactContext(messages, options)`, as JSON text when the messages are
 * plain JSON without inline payloads (then `asText` is true): each message
 * that did not change is the caller's own, as in `compactContext`.
 */
export async function compactPrompt(messages, options) {
  if (!Array.isArray(messages) || !plainWithoutPayloads(messages, undefined, 0, options?.sanitizeToolResults === true)) {
    return { ...(await compactContext(messages, options)), asText: false };
  }
  const texts = messages.map((m) => JSON.stringify(m));
  const body = `[${texts.join(',')}]`;
  const { body: out, report } = await compactRequestBody(body, options);
  if (out === body) return { messages, report, asText: true };
  const parsed = JSON.parse(out);
  return { messages: parsed.map((m, i) => (JSON.stringify(m) === texts[i] ? messages[i] : m)), report, asText: true };
}
