// compactRequestBody: the body crosses into the full module once (for a
// body given as bytes or as the chunks it was read in, only the bytes
// after those it shares with the body before), and the changed messages'
// texts are spliced back here.
import { sharedUploads } from './uploads.js';

/** Bytes compared at a time while the two bodies agree, at most. */
const STEP = 1 << 16;
/** The first step: each after it is twice the one before, up to STEP. */
const FIRST_STEP = 1 << 10;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * A body as the chunks it was read in (a server's request arrives in
 * pieces of up to 64 KB): `chunks`, in order, and where each begins
 * (`starts`, with the total length last). The chunks are compared and
 * spliced where they lie; only the bytes handed to the full module, and a
 * body that must be whole, are joined.
 */
function chunked(chunks) {
  const starts = new Array(chunks.length + 1);
  let at = 0;
  for (let k = 0; k < chunks.length; k++) {
    starts[k] = at;
    at += chunks[k].length;
  }
  starts[chunks.length] = at;
  return { chunks, starts, length: at };
}

/** The index of the chunk of `body` (see `chunked`) byte `i` lies in (`i` < its length). */
function chunkAt(body, i) {
  const { starts } = body;
  let lo = 0;
  let hi = body.chunks.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (starts[mid] <= i) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The bytes `from`..`to` of `body` (see `chunked`), as the views of its chunks they lie in. */
function piecesOf(body, from, to) {
  const pieces = [];
  for (let k = from < to ? chunkAt(body, from) : body.chunks.length; from < to; k++) {
    const begins = body.starts[k];
    const ends = Math.min(to, begins + body.chunks[k].length);
    if (ends > from) pieces.push(body.chunks[k].subarray(from - begins, ends - begins));
    from = ends;
  }
  return pieces;
}

/** `pieces` (bytes) as one array: the piece itself when there is one. */
function joined(pieces) {
  if (pieces.length === 1) return pieces[0];
  let length = 0;
  for (const piece of pieces) length += piece.length;
  const out = new Uint8Array(length);
  let to = 0;
  for (const piece of pieces) {
    out.set(piece, to);
    to += piece.length;
  }
  return out;
}

/**
 * How many leading bytes `a`, a kept body, and `b` (see `chunked`) share;
 * `likely`: where `a`'s last message begins, the bytes before it those a
 * conversation's next body shares, compared first all at once. Where the
 * host has Node's `Buffer` (a native comparison of two ranges, no view
 * made for either), by growing steps and then halving; elsewhere byte by
 * byte.
 */
function sharedPrefix(a, b, likely) {
  const n = Math.min(a.length, b.length);
  const compare = globalThis.Buffer?.prototype?.compare;
  if (typeof compare !== 'function') {
    let i = 0;
    for (const chunk of b.chunks) {
      for (let j = 0; j < chunk.length && i < n; j++, i++) if (a[i] !== chunk[j]) return i;
    }
    return i;
  }
  /** Whether `a` and `b` agree from byte `from` to byte `to`, chunk by chunk. */
  const same = (from, to) => {
    for (let k = chunkAt(b, from); from < to; k++) {
      const begins = b.starts[k];
      const ends = Math.min(to, begins + b.chunks[k].length);
      if (compare.call(a, b.chunks[k], from - begins, ends - begins, from, ends) !== 0) return false;
      from = ends;
    }
    return true;
  };
  let at = likely > 0 && likely <= n && same(0, likely) ? likely : 0;
  for (let step = FIRST_STEP; at < n; step = Math.min(2 * step, STEP)) {
    const end = Math.min(n, at + step);
    if (same(at, end)) {
      at = end;
      continue;
    }
    let lo = at;
    let hi = end;
    while (hi - lo > 32) {
      const mid = (lo + hi) >>> 1;
      if (same(lo, mid)) lo = mid;
      else hi = mid;
    }
    while (lo < hi && same(lo, lo + 1)) lo++;
    return lo;
  }
  return n;
}

/**
 * `body` (see `chunked`) with each of `ranges` (byte offsets) replaced by
 * its text of `texts`: the pieces of it to write in order, views of its
 * chunks between the texts.
 */
function splicedPieces(body, ranges, texts) {
  const pieces = [];
  let at = 0;
  for (let k = 0; k < texts.length; k++) {
    pieces.push(...piecesOf(body, at, ranges[2 * k]), encoder.encode(texts[k]));
    at = ranges[2 * k + 1];
  }
  pieces.push(...piecesOf(body, at, body.length));
  return pieces;
}

/** An index the full module hands over as a number, NaN for `null`. */
const orNull = (n) => (Number.isNaN(n) ? null : n);

/** No edits. */
const NO_RANGES = new Float64Array(0);

/**
 * The parts of what the full module's `__compactRequestBody` answers (see
 * `answer` in src/api/request_body.rs): `numbers`, the report's numbers
 * and the counts after them; `ranges` and `texts`, the edits (none when
 * the answer is the numbers alone); `rare`, the report's failures and
 * notes as JSON text, when it has any.
 */
function answerParts(a) {
  if (a instanceof Float64Array) return { numbers: a, ranges: NO_RANGES, texts: [], rare: undefined };
  return { numbers: a[0], ranges: a[1], texts: a[2], rare: a[3] };
}

/**
 * The report of a compaction, made of what the full module hands over
 * (see `report_numbers` in src/api/request_body.rs): `n` its numbers in
 * the order the Rust `CompactReport` declares its fields (the format as
 * its index in `formats`, the full module's `__formatNames()`; booleans
 * as 1 or 0), `rare` its failures and notes as JSON text, when it has
 * any. The report is `compactContext`'s, key for key in the same order,
 * as the tests hold it.
 */
function reportOf(n, formats, rare) {
  const seldom = rare === undefined ? undefined : JSON.parse(rare);
  const report = {
    format: formats[n[0]],
    newestUserIndex: orNull(n[1]),
    firstChangedIndex: orNull(n[2]),
    cacheBreakpointIndex: orNull(n[3]),
    stashed: n[4],
    deduplicated: n[5],
    written: n[6],
    kept: n[7],
    urls: n[8],
    failed: n[9],
    refreshed: n[10],
    missing: n[11],
    bytesBefore: n[12],
    bytesAfter: n[13],
    failures: seldom?.failures ?? [],
    expired: n[14],
    evicted: n[15],
    overBudget: n[16] === 1,
    binariesStashed: n[17],
    limitStashed: n[18],
    fits: n[19] === 1,
  };
  if (seldom?.limitProblem !== undefined) report.limitProblem = seldom.limitProblem;
  report.offloaded = n[20];
  report.uploaded = n[21];
  report.offloadedBytes = n[22];
  if (seldom?.offloadNote !== undefined) report.offloadNote = seldom.offloadNote;
  return report;
}

/**
 * compactRequestBody over the full module (`inFull(options, compact)`
 * resolves to `compact(full, options)`, with the full module's stash in
 * `options`), for a body given as bytes (a `Uint8Array`, a Node `Buffer`),
 * as the chunks a server read it in (an array of them, never joined but
 * for the bytes handed over), or as a string (encoded first, and the
 * answer decoded back when a message changed). The body is compared with
 * those the stash's memory keeps from the calls before (views of them in
 * wasm memory, compared at once): only the bytes after those it shares
 * with the turn before cross in, and the messages within the shared bytes
 * are taken as they were read. What comes back is each changed message's
 * text and the byte range it replaces, spliced here into the caller's
 * body (the same string, array or list of chunks when nothing changed; a
 * list of chunks comes back as the pieces to write in order, views of its
 * own chunks between the changed messages). `main` makes the errors
 * thrown here.
 */
function requestBodyCompaction(main, inFull) {
  /** The full module's `__formatNames()`, asked for once. */
  let formats = null;
  /** Compacts `body` (see `chunked`): resolves to `{pieces, report}`, `pieces` null when nothing changed. */
  function compactChunks(body, options) {
    return inFull(options, (full, twinned) => {
      const shared = sharedUploads(twinned);
      formats ??= full.__formatNames();
      const answered = (a) => {
        const { numbers, ranges, texts, rare } = answerParts(a);
        return { pieces: texts.length === 0 ? null : splicedPieces(body, ranges, texts), report: reportOf(numbers, formats, rare) };
      };
      const stash = twinned?.stash;
      const kept = typeof stash === 'object' && stash !== null ? full.__previousRequestBodies(stash) : [];
      // The kept body this one shares most with: the conversation's turn
      // before. One that shares less than half of itself is another
      // conversation's (a short request beside an agent's loop shares its
      // first bytes), and stays kept for that one.
      // Each kept body comes with where its last message begins.
      let best = -1;
      let same = 0;
      for (let i = 0; i + 1 < kept.length; i += 2) {
        const n = sharedPrefix(kept[i], body, kept[i + 1]);
        if (n > same && n >= kept[i].length / 2) [best, same] = [i / 2, n];
      }
      if (best < 0) return full.__compactRequestBody(joined(piecesOf(body, 0, body.length)), shared).then(answered);
      // In this same turn of the event loop: the full module takes the
      // body it keeps before any other call can.
      return full.__compactRequestBody(joined(piecesOf(body, same, body.length)), shared, same, best).then(answered);
    });
  }

  return function compactRequestBody(body, options) {
    if (Array.isArray(body)) {
      const bad = body.findIndex((chunk) => !(chunk instanceof Uint8Array));
      if (bad >= 0) return Promise.reject(main.__ctxpackError('INVALID_ARGUMENT', 'must be a Uint8Array (a chunk of the body\'s bytes)', `body[${bad}]`));
      return compactChunks(chunked(body), options).then(({ pieces, report }) => ({ body: pieces ?? body, report }));
    }
    if (typeof body === 'string') {
      if (body.isWellFormed?.() === false) {
        return Promise.reject(main.__ctxpackError('INVALID_ARGUMENT', 'holds a lone surrogate, which has no UTF-8 form', 'body'));
      }
      return compactChunks(chunked([encoder.encode(body)]), options)
        .then(({ pieces, report }) => ({ body: pieces === null ? body : decoder.decode(joined(pieces)), report }));
    }
    // Anything else but bytes is refused by the full module, where the
    // message for it is written.
    if (!(body instanceof Uint8Array)) return inFull(options, (full, twinned) => full.__compactRequestBody(body, sharedUploads(twinned)));
    return compactChunks(chunked([body]), options).then(({ pieces, report }) => ({ body: pieces === null ? body : joined(pieces), report }));
  };
}

export { requestBodyCompaction, answerParts, reportOf };
