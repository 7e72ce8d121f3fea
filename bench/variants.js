// New payloads for each benchmark run: ctxpack remembers what it read, so a
// run that sent the same history again would measure the memo, not the
// work. Loaded by the benchmark pages and by scripts/bench.mjs.

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * Variant `k` of base64 text: one character 2 KB in changed (past an image's
 * header, or in the middle of a shorter text), so the text (and its MD5) is
 * new while its size and header stay. Two photos from a camera, or two
 * screenshots, differ within their first kilobytes; a change in the middle
 * of a megabyte instead made every lookup of a string key compare half a
 * megabyte with each remembered payload of the same length (an engine
 * hashes a long string by its length alone), a cost no real history has.
 */
export function variant(b64, k) {
  const i = Math.min(2048, b64.length >> 1);
  const c = ALPHABET[(ALPHABET.indexOf(b64[i]) + 1 + (k % 63)) % 64];
  return b64.slice(0, i) + c + b64.slice(i + 1);
}

/**
 * OpenAI-format `messages` with every data-URL image payload replaced by its
 * variant `k`: the same shape, nothing an earlier run has seen. Its strings
 * are flat, as JSON.parse or FileReader make them (an app restoring a chat
 * after a reload), not ropes of concatenated pieces.
 */
export function variantMessages(messages, k) {
  const ropes = messages.map((m) => (Array.isArray(m.content) ? { ...m, content: m.content.map((p) => {
    const url = p.image_url?.url;
    if (typeof url !== 'string' || !url.startsWith('data:')) return p;
    const comma = url.indexOf(',');
    return { ...p, image_url: { ...p.image_url, url: url.slice(0, comma + 1) + variant(url.slice(comma + 1), k) } };
  }) } : m));
  return JSON.parse(JSON.stringify(ropes));
}
