'use strict';
// The top-level "model" field of a JSON request body, read without parsing
// the body: strings (image payloads among them) are skipped by looking for
// their closing quote, so a 15 MB body costs a scan, not a parse.

/** The index just past the string that opens at `i` (a `"`), or -1. */
function skipString(text, i) {
  let j = i + 1;
  for (;;) {
    const q = text.indexOf('"', j);
    if (q === -1) return -1;
    let backslashes = 0;
    for (let k = q - 1; k > i && text.charCodeAt(k) === 92; k--) backslashes++;
    if (backslashes % 2 === 0) return q + 1;
    j = q + 1;
  }
}

/**
 * The string value of the body's top-level `model` field, or undefined when
 * the body is not a JSON object or has none.
 */
function topLevelModel(text) {
  let i = 0;
  while (i < text.length && text.charCodeAt(i) <= 32) i++;
  if (text[i] !== '{') return undefined;
  let depth = 0;
  let expectKey = false;
  for (; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const end = skipString(text, i);
      if (end === -1) return undefined;
      if (depth === 1 && expectKey) {
        const key = text.slice(i + 1, end - 1);
        let j = end;
        while (j < text.length && text.charCodeAt(j) <= 32) j++;
        if (text[j] !== ':') return undefined;
        j++;
        while (j < text.length && text.charCodeAt(j) <= 32) j++;
        if (key === 'model') {
          if (text[j] !== '"') return undefined;
          const close = skipString(text, j);
          if (close === -1) return undefined;
          try {
            return JSON.parse(text.slice(j, close));
          } catch {
            return undefined;
          }
        }
        expectKey = false;
        i = j - 1;
        continue;
      }
      i = end - 1;
    } else if (c === '{' || c === '[') {
      depth++;
      expectKey = c === '{' && depth === 1;
    } else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return undefined;
    } else if (c === ',' && depth === 1) {
      expectKey = true;
    }
  }
  return undefined;
}

module.exports = { topLevelModel };
