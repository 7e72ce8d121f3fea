// What the adapters compact with. A model call's prompt is made anew for
// every call (the AI SDK converts its messages each time; the LangChain
// middleware hands over new wire objects), so compactContext's memory of
// message objects never finds them. A prompt of plain JSON values without
// inline payloads goes as JSON text instead (compactRequestBody), whose
// memory finds each message by its text: a long agent chat then costs what
// is new. A prompt holding bytes, URLs or inline images goes as objects,
// where a payload string sent before is not hashed again.
import { compactContext, compactRequestBody } from 'ctxpack';

/** Keys whose string may be an image payload (each format's). */
const PAYLOAD_KEYS = new Set(['data', 'image', 'url', 'image_url', 'images', 'blob', 'file_data', 'uri']);

/** How deep the library reads; deeper prompts go as objects (which refuse them by path). */
const MAX_DEPTH = 256;

/**
 * Whether `value` is made of plain objects, arrays, strings, booleans,
 * null and finite numbers only, with no `data:` URL and no string under a
 * payload key but an http(s) URL.
 */
function plainWithoutPayloads(value, key, depth) {
  if (value === null || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value === 'string') {
    if (value.length > 5 && value.slice(0, 5).toLowerCase() === 'data:') return false;
    return !(key !== undefined && PAYLOAD_KEYS.has(key)) || /^https?:/i.test(value) || value.length < 64;
  }
  if (typeof value !== 'object' || depth > MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    const itemKey = key === 'images' ? key : undefined;
    return value.every((v) => plainWithoutPayloads(v, itemKey, depth + 1));
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const k in value) {
    const v = value[k];
    if (v !== undefined && !plainWithoutPayloads(v, k, depth + 1)) return false;
  }
  return true;
}

/**
 * `compactContext(messages, options)`, as JSON text when the messages are
 * plain JSON without inline payloads (then `asText` is true): each message
 * that did not change is the caller's own, as in `compactContext`.
 */
export async function compactPrompt(messages, options) {
  if (!Array.isArray(messages) || !plainWithoutPayloads(messages, undefined, 0)) {
    return { ...(await compactContext(messages, options)), asText: false };
  }
  const texts = messages.map((m) => JSON.stringify(m));
  const body = `[${texts.join(',')}]`;
  const { body: out, report } = await compactRequestBody(body, options);
  if (out === body) return { messages, report, asText: true };
  const parsed = JSON.parse(out);
  return { messages: parsed.map((m, i) => (JSON.stringify(m) === texts[i] ? messages[i] : m)), report, asText: true };
}
