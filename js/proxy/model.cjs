'use strict';
// The top-level "model" field of a JSON request body, read without parsing
// the body: strings (image payloads among them) are skipped by looking for
// their closing quote, so a 15 MB body costs a scan, not a parse. The body
// is read as the bytes the proxy received (a string is encoded first).

const MODEL = Buffer.from('model');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN = new Set([0x7b, 0x5b]); // { [
const CLOSE = new Set([0x7d, 0x5d]); // } ]

/** The index just past the string that opens at `i` (a `"`), or -1. */
function skipString(bytes, i) {
  let j = i + 1;
  for (;;) {
    const q = bytes.indexOf(QUOTE, j);
    if (q === -1) return -1;
    let backslashes = 0;
    for (let k = q - 1; k > i && bytes[k] === BACKSLASH; k--) backslashes++;
    if (backslashes % 2 === 0) return q + 1;
    j = q + 1;
  }
}

/** The first index at or after `i` that is not whitespace (or a control byte). */
function skipSpace(bytes, i) {
  while (i < bytes.length && bytes[i] <= 32) i++;
  return i;
}

/**
 * The string value of the body's top-level `model` field, or undefined when
 * the body is not a JSON object or has none. `body`: a Buffer, a string, or
 * the chunks a body arrived in (Buffers), read from the first: the scan
 * stops at the first top-level key named `model` and takes its string only
 * when the string ends within the bytes read, so what the first chunk
 * gives is what the whole body gives; the chunks are joined only when it
 * gives nothing.
 */
function topLevelModel(body) {
  if (Array.isArray(body)) {
    const first = body.length === 0 ? undefined : topLevelModel(body[0]);
    return first !== undefined || body.length < 2 ? first : topLevelModel(Buffer.concat(body));
  }
  const bytes = typeof body === 'string' ? Buffer.from(body) : Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.length);
  let i = skipSpace(bytes, 0);
  if (bytes[i] !== 0x7b) return undefined;
  let depth = 0;
  let expectKey = false;
  for (; i < bytes.length; i++) {
    const c = bytes[i];
    if (c === QUOTE) {
      const end = skipString(bytes, i);
      if (end === -1) return undefined;
      if (depth === 1 && expectKey) {
        let j = skipSpace(bytes, end);
        if (bytes[j] !== COLON) return undefined;
        j = skipSpace(bytes, j + 1);
        // The key's bytes are those of "model" (compared where they lie).
        if (end - i === MODEL.length + 2 && bytes.compare(MODEL, 0, MODEL.length, i + 1, end - 1) === 0) {
          if (bytes[j] !== QUOTE) return undefined;
          const close = skipString(bytes, j);
          if (close === -1) return undefined;
          try {
            return JSON.parse(bytes.toString('utf8', j, close));
          } catch {
            return undefined;
          }
        }
        expectKey = false;
        i = j - 1;
        continue;
      }
      i = end - 1;
    } else if (OPEN.has(c)) {
      depth++;
      expectKey = c === 0x7b && depth === 1;
    } else if (CLOSE.has(c)) {
      depth--;
      if (depth === 0) return undefined;
    } else if (c === COMMA && depth === 1) {
      expectKey = true;
    }
  }
  return undefined;
}

module.exports = { topLevelModel };
