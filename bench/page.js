// Runs in the benchmark page: ctxpack (web build) against plain JavaScript
// implementations of the same algorithm, on the same input, in one run.
// The package's browser entry (the API), not the wasm-bindgen glue it wraps.
import init, { Stash, compactContext, md5Hex } from '/dist/web/index.js';
import { variantMessages } from '/bench/variants.js';

const wasm = await init();
const PLACEHOLDER = (md5) => `[Picture:history_${md5}]`;

const openDb = (name) =>
  new Promise((resolve, reject) => {
    const req = indexedDB.open(name, 1);
    req.onupgradeneeded = () => req.result.createObjectStore('images', { keyPath: 'id' });
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
const deleteDb = (name) =>
  new Promise((resolve) => {
    const req = indexedDB.deleteDatabase(name);
    req.onsuccess = req.onerror = req.onblocked = () => resolve();
  });
const putOne = (db, record) =>
  new Promise((resolve, reject) => {
    const tx = db.transaction('images', 'readwrite');
    tx.objectStore('images').put(record);
    tx.oncomplete = () => resolve();
    tx.onerror = tx.onabort = () => reject(tx.error);
  });
const putAll = (db, records) =>
  new Promise((resolve, reject) => {
    const tx = db.transaction('images', 'readwrite');
    const store = tx.objectStore('images');
    for (const r of records) store.put(r);
    tx.oncomplete = () => resolve();
    tx.onerror = tx.onabort = () => reject(tx.error);
  });

/** The same algorithm in plain JavaScript: hash each history image, one put per image, replace. */
async function plainJs(messages, hash, db) {
  let newest = -1;
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role === 'user') { newest = i; break; }
  const out = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (i >= newest || !Array.isArray(m.content)) { out.push(m); continue; }
    const content = [];
    for (const part of m.content) {
      const url = part.type === 'image_url' ? part.image_url?.url : null;
      if (typeof url === 'string' && url.startsWith('data:')) {
        const comma = url.indexOf(',');
        const b64 = url.slice(comma + 1);
        const mime = url.slice(5, url.indexOf(';'));
        const id = await hash(b64);
        const now = Date.now();
        await putOne(db, { id, mime, data: b64, size: Math.floor((b64.length * 3) / 4), createdAt: now, expiresAt: now + 7200e3, lastUsedAt: now });
        content.push({ type: 'text', text: PLACEHOLDER(id) });
      } else content.push(part);
    }
    out.push({ ...m, content });
  }
  return out;
}

/** The floor: hash exactly the history payloads, one transaction with exactly ctxpack's records. */
async function floor(payloads, hash, db) {
  const records = [];
  for (const { mime, b64 } of payloads) {
    const id = await hash(b64);
    const now = Date.now();
    records.push({ id, mime, data: b64, size: Math.floor((b64.length * 3) / 4), createdAt: now });
    records.push({ id: `${id}.meta`, size: 0, storedBytes: b64.length, mime, createdAt: now, expiresAt: now + 7200e3, lastUsedAt: now });
  }
  await putAll(db, records);
}

function historyPayloads(messages) {
  let newest = -1;
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role === 'user') { newest = i; break; }
  const seen = new Set();
  const out = [];
  for (const m of messages.slice(0, newest)) {
    if (!Array.isArray(m.content)) continue;
    for (const p of m.content) {
      const url = p.image_url?.url;
      if (typeof url === 'string' && url.startsWith('data:')) {
        const b64 = url.slice(url.indexOf(',') + 1);
        if (!seen.has(b64)) { seen.add(b64); out.push({ mime: url.slice(5, url.indexOf(';')), b64 }); }
      }
    }
  }
  return out;
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
let dbCounter = 0;
const freshName = (tag) => `bench-${tag}-${Date.now()}-${dbCounter++}`;

/** Times `fn(dbName, run)` `runs` times after one warm-up, each on a fresh database. */
async function measure(tag, runs, fn) {
  const times = [];
  for (let i = 0; i <= runs; i++) {
    const name = freshName(tag);
    const t0 = performance.now();
    await fn(name, i);
    const t = performance.now() - t0;
    await deleteDb(name);
    if (i > 0) times.push(t);
  }
  return { median: median(times), runs: times };
}

window.runBench = async ({ workload, runs }) => {
  const original = await (await fetch(workload)).json();
  const payloads = historyPayloads(original);
  const sparkHash = async (s) => SparkMD5.hash(s);
  const hashWasm = async (s) => hashwasm.md5(s);
  const results = {};
  // Each run compacts a history with new payloads: a first send, nothing remembered.
  const variants = Array.from({ length: runs + 1 }, (_, i) => variantMessages(original, 100 + i));
  const messages = original;
  results.ctxpack = await measure('ctxpack', runs, async (name, run) => {
    const stash = await Stash.open({ name });
    const { report } = await compactContext(variants[run], { stash });
    if (report.stashed !== payloads.length) throw new Error(`stashed ${report.stashed}, expected ${payloads.length}`);
    stash.close();
  });
  results['spark-md5 + IndexedDB put per image'] = await measure('spark', runs, async (name) => {
    const db = await openDb(name);
    await plainJs(messages, sparkHash, db);
    db.close();
  });
  results['hash-wasm + IndexedDB put per image'] = await measure('hashwasm', runs, async (name) => {
    const db = await openDb(name);
    await plainJs(messages, hashWasm, db);
    db.close();
  });
  results['floor (hash-wasm + one transaction)'] = await measure('floor', runs, async (name) => {
    const db = await openDb(name);
    await floor(payloads, hashWasm, db);
    db.close();
  });
  return {
    images: payloads.length,
    imageBytes: payloads.reduce((n, p) => n + p.b64.length, 0),
    messages: messages.length,
    results,
    wasmMemoryBytes: wasm.memory.buffer.byteLength,
    userAgent: navigator.userAgent,
  };
};
/** MD5 throughput: MB/s over a 1 MB string, and hashes/s of 32-byte strings. */
window.runMd5 = async ({ runs }) => {
  const big = (await (await fetch('/bench/workload-big.json')).json())[0].content[1].image_url.url.slice(22, 22 + (1 << 20));
  const small = Array.from({ length: 1000 }, (_, i) => `k${i}`.padEnd(32, 'x'));
  const impls = {
    ctxpack: (s) => md5Hex(s),
    'hash-wasm': (s) => hashwasm.md5(s),
    'spark-md5': (s) => SparkMD5.hash(s),
  };
  const out = {};
  for (const [name, fn] of Object.entries(impls)) {
    if (name === 'hash-wasm') await hashwasm.md5('warm');
    const bigTimes = [];
    const smallTimes = [];
    for (let r = 0; r <= runs; r++) {
      let t0 = performance.now();
      for (let i = 0; i < 8; i++) await fn(big + i);
      const tb = (performance.now() - t0) / 8;
      t0 = performance.now();
      for (let i = 0; i < 20; i++) for (const s of small) await fn(s);
      const ts = (performance.now() - t0) / (20 * small.length);
      if (r > 0) { bigTimes.push(tb); smallTimes.push(ts); }
    }
    out[name] = { mbPerS: (big.length / 1048576) / (median(bigTimes) / 1000), smallPerS: 1000 / median(smallTimes) };
  }
  return out;
};

window.benchReady = true;
