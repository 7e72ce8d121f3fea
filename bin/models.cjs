// `ctxpack models [--json] [FILTER]`: the model table — each model's image
// limits, token rule, context window, source and date — from modelIds() and
// modelProfile(). A filter matching no id of the table is read as a model id
// and shows the profile it resolves to (its family's, for one the table does
// not name).
'use strict';

const MB = 1024 * 1024;

/** A byte count as the providers write it. */
const bytes = (n) => (n == null ? '-' : n % MB === 0 ? `${n / MB} MB` : `${n} B`);

/** How a rule counts an image's tokens, in a few characters. */
function rule(t) {
  switch (t.kind) {
    case 'openai-tiles': return `${t.base} + ${t.perTile}/${t.tile}-px tile`;
    case 'openai-patches': return `${t.patch}-px patches ×${t.multiplierMilli / 1000} ≤ ${t.maxPatches}`;
    case 'anthropic-pixels': return `w·h/${t.pixelsPerToken} ≤ ${t.longEdge} px, ${t.maxTokens}`;
    case 'anthropic-patches': return `${t.patch}-px patches ≤ ${t.longEdge} px, ${t.maxTokens}`;
    case 'gemini-tiles': return `${t.perTile}/${t.tile}-px tile`;
    default: return `${t.high}/${t.medium}/${t.low} by resolution`;
  }
}

/** The profiles `filter` selects: ids of the table containing it (any case), else the id itself. */
function selected(ctxpack, filter) {
  const ids = ctxpack.modelIds();
  const f = filter?.toLowerCase();
  const hits = f ? ids.filter((id) => id.includes(f) || ctxpack.modelProfile(id).provider === f) : ids;
  return (hits.length ? hits : [filter]).map((id) => ({ id, ...ctxpack.modelProfile(id) }));
}

/** One line of the table for `p`, its source numbered `n`. */
function line(p, n) {
  const images = p.readsImages
    ? `${p.maxImages ?? '-'} images, ${bytes(p.maxImageBytes)}${p.imageBytesOn === 'base64' ? ' of base64' : ''} each, ${bytes(p.maxRequestBytes)} a request; ${rule(p.tokens)}`
    : 'reads no images';
  const notes = [
    p.inferred ? `inferred from ${p.matched}` : p.matched !== p.id ? `as ${p.matched}` : '',
    p.retired ? `retired ${p.retired}` : '',
  ].filter(Boolean);
  const context = p.contextTokens == null ? '-' : p.contextTokens.toLocaleString('en-US');
  return `${p.id.padEnd(30)} ${p.provider.padEnd(9)} ${context.padStart(9)}  ${images}${notes.length ? ` (${notes.join(', ')})` : ''} [${n}]`;
}

/** Prints the table (or, with --json, the profiles) to stdout. */
function listModels(ctxpack, opts) {
  const profiles = selected(ctxpack, opts.input ?? undefined);
  if (opts.json) {
    process.stdout.write(`${JSON.stringify(profiles, null, 2)}\n`);
    return 0;
  }
  const sources = [];
  const lines = profiles.map((p) => {
    if (!sources.includes(p.source)) sources.push(p.source);
    return line(p, sources.indexOf(p.source) + 1);
  });
  const head = `${'model'.padEnd(30)} ${'provider'.padEnd(9)} ${'context'.padStart(9)}  images`;
  const notes = sources.map((s, i) => `[${i + 1}] ${s}`);
  process.stdout.write(`${[head, ...lines, '', ...notes].join('\n')}\n`);
  return 0;
}

module.exports = { listModels };
