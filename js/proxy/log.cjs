'use strict';
// The proxy's log line: one per request, on what was done to it. It names
// the path (never the query, where Gemini keys may ride), the model and the
// figures; no header, and so no credential, is ever in it.

/** `n` bytes, readable. */
function size(n) {
  if (n === undefined) return '?';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * The text line for a log `entry` (as `createProxy`'s `log` option receives
 * it), without a line break.
 */
function formatLogLine(entry) {
  const parts = [`${entry.method} ${entry.path}`];
  if (entry.model !== undefined) parts.push(entry.model);
  if (entry.compacted) {
    parts.push(`${size(entry.bytesIn)} → ${size(entry.bytesOut)}`);
    const referenced = entry.offloaded ? `, ${entry.offloaded} by reference` : '';
    const failed = entry.failed ? `, ${entry.failed} failed (${entry.failure})` : '';
    parts.push(`images ${entry.stashed} stashed, ${entry.kept} kept${referenced}, ${entry.uploaded} uploaded${failed}`);
    parts.push(`first changed ${entry.firstChangedIndex ?? 'none'}`);
  } else {
    parts.push(`${size(entry.bytesIn)} passed through${entry.note ? ` (${entry.note})` : ''}`);
  }
  if (entry.repaired) parts.push(`repaired after ${entry.repaired.status} ${entry.repaired.kind}`);
  else if (entry.repairFailed) parts.push(`not repaired: ${entry.repairFailed}`);
  parts.push(entry.status === 502 && entry.error ? `upstream unreachable: ${entry.error}` : `upstream ${entry.status ?? 'none'}`);
  parts.push(`+${entry.addedMs.toFixed(1)} ms`);
  return `ctxpack proxy: ${parts.join(', ')}`;
}

module.exports = { formatLogLine, size };
