// Runs in a freshly loaded benchmark page (nothing remembered yet): the send
// a chat app really makes. The app keeps its original messages and hands
// them all to compactContext before every request; each turn adds one new
// image. Measured against the floor of that turn (hash the new image with
// hash-wasm, one IndexedDB transaction), with the longest main-thread task
// of each call (PerformanceObserver 'longtask': tasks over 50 ms).
import init, { Stash, compactContext, estimate, expandContext, fitContext, sanitizeToolResult, toMultimodal } from '/dist/web/index.js';
import { variant, variantMessages } from '/bench/variants.js';
import { agentChat, plainResent } from '/bench/agent-chat.js';

await init();

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
let dbCounter = 0;
const freshName = (tag) => `bench-${tag}-${Date.now()}-${dbCounter++}`;
const deleteDb = (name) => new Promise((resolve) => {
  const req = indexedDB.deleteDatabase(name);
  req.onsuccess = req.onerror = req.onblocked = () => resolve();
});
const openDb = (name) => new Promise((resolve, reject) => {
  const req = indexedDB.open(name, 1);
  req.onupgradeneeded = () => { req.result.createObjectStore('images', { keyPath: 'id' }); req.result.createObjectStore('meta', { keyPath: 'id' }); };
  req.onsuccess = () => resolve(req.result);
  req.onerror = () => reject(req.error);
});

/** Runs `fn`, timing it and collecting the long tasks of the page meanwhile. */
async function withLongTasks(fn) {
  const durations = [];
  const observer = new PerformanceObserver((list) => { for (const e of list.getEntries()) durations.push(e.duration); });
  observer.observe({ entryTypes: ['longtask'] });
  const t0 = performance.now();
  const value = await fn();
  const ms = performance.now() - t0;
  // Long-task entries arrive after their task: give them a moment.
  await new Promise((r) => setTimeout(r, 100));
  for (const e of observer.takeRecords()) durations.push(e.duration);
  observer.disconnect();
  return { ms, longest: durations.length ? Math.max(...durations) : 0, longTasks: durations.length, value };
}

/** The floor of one turn: hash the new image, write its two records in one transaction. */
async function floorTurn(b64, mime) {
  const name = freshName('floor');
  const db = await openDb(name);
  const t0 = performance.now();
  const id = await hashwasm.md5(b64);
  const now = Date.now();
  await new Promise((resolve, reject) => {
    const tx = db.transaction(['images', 'meta'], 'readwrite');
    tx.objectStore('images').put({ id, mime, data: b64, size: Math.floor((b64.length * 3) / 4), createdAt: now });
    tx.objectStore('meta').put({ id, size: 0, storedBytes: b64.length, mime, createdAt: now, expiresAt: now + 7200e3, lastUsedAt: now });
    tx.oncomplete = () => resolve();
    tx.onerror = tx.onabort = () => reject(tx.error);
  });
  const ms = performance.now() - t0;
  db.close();
  await deleteDb(name);
  return ms;
}

const historyImages = (messages) => messages.filter((m) => Array.isArray(m.content) && m.content.some((p) => p.image_url)).length;

/** First send of the app's history, then `runs` turns that each add one new image to it. */
window.runResent = async ({ workload, fresh, runs }) => {
  const messages = await (await fetch(workload)).json();
  const image = await (await fetch(fresh)).json();
  const name = freshName('resent');
  const stash = await Stash.open({ name });
  const first = await withLongTasks(() => compactContext(messages, { stash }));
  const turns = [];
  const floors = [];
  let longest = 0;
  for (let r = 0; r <= runs; r++) {
    const b64 = variant(image.b64, r + 1);
    const history = [
      ...messages.slice(0, -1),
      { role: 'user', content: [{ type: 'text', text: 'one more' }, { type: 'image_url', image_url: { url: `data:${image.mime};base64,${b64}` } }] },
      { role: 'assistant', content: 'seen' },
      { role: 'user', content: 'and now?' },
    ];
    const turn = await withLongTasks(() => compactContext(history, { stash }));
    const { report } = turn.value;
    const expected = historyImages(messages) + 1;
    if (report.stashed !== expected || report.written !== 1) throw new Error(`re-sent turn stashed ${report.stashed} (expected ${expected}), wrote ${report.written}`);
    const floor = await floorTurn(variant(image.b64, 1000 + r), image.mime);
    if (r > 0) { turns.push(turn.ms); floors.push(floor); longest = Math.max(longest, turn.longest); }
  }
  stash.close();
  await deleteDb(name);
  return { images: historyImages(messages), first: { ms: first.ms, longest: first.longest, longTasks: first.longTasks }, turn: median(turns), floor: median(floors), longest };
};

/** Lets the page settle for `ms` (pending collections of the inputs just made) before a measurement. */
const settle = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * The longest task of one job on the big workload, nothing remembered (a
 * first send after a reload): run in a page of its own, its input made and
 * left to settle before the measurement starts.
 */
window.runLongTask = async ({ workload, model, job, settleMs = 1000 }) => {
  const messages = variantMessages(await (await fetch(workload)).json(), 7);
  const stash = await Stash.open({ name: freshName('long') });
  let run;
  if (job === 'compactContext') run = () => compactContext(messages, { stash });
  if (job === 'expandContext') {
    const { messages: compacted } = await compactContext(messages, { stash });
    run = () => expandContext(compacted, { stash });
  }
  if (job === 'fitContext') run = () => fitContext(messages, { model, stash });
  if (job === 'sanitizeToolResult') {
    const urls = messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((p) => p.image_url).map((p) => p.image_url.url);
    const toolResult = JSON.parse(JSON.stringify({ content: urls.map((url) => ({ type: 'image', mimeType: url.slice(5, url.indexOf(';')), data: url.slice(url.indexOf(',') + 1) })) }));
    run = () => sanitizeToolResult(toolResult, { stash });
  }
  if (job === 'toMultimodal') {
    const urls = messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((p) => p.image_url).map((p) => p.image_url.url);
    const markdown = JSON.parse(JSON.stringify(urls.map((url, i) => `Screenshot ${i}:\n\n![shot ${i}](${url})\n`).join('\n')));
    run = () => toMultimodal(markdown);
  }
  await settle(settleMs);
  const out = await withLongTasks(run);
  stash.close();
  delete out.value;
  return out;
};

/** The page's own MD5 (spark-md5) and base64 check, for plain JavaScript's walk. */
const pageHost = {
  md5: (b64) => SparkMD5.hash(b64),
  validBase64: (b64) => {
    try {
      atob(b64);
      return true;
    } catch {
      return false;
    }
  },
};

/**
 * An agent's chat of `messages` (2,000) messages kept by the page: each
 * turn adds two messages and hands the whole chat to compactContext (and
 * estimate), against plain JavaScript's walk of it; `turnsPerRun` turns a run.
 */
window.runLongChat = async ({ fresh, runs, messages = 2000, turnsPerRun = 10 }) => {
  const image = await (await fetch(fresh)).json();
  const name = freshName('long-chat');
  const stash = await Stash.open({ name });
  const shots = Array.from({ length: 8 }, (_, i) => ({ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:${image.mime};base64,${variant(image.b64, 5000 + i)}` } }] }));
  const { messages: stashed } = await compactContext([...shots, { role: 'user', content: 'ok' }], { stash });
  const chat = agentChat(messages, stashed.slice(0, 8).map((m) => m.content[0].text));
  // Noted, then read and remembered: the turns below are the app's steady state.
  await compactContext(chat, { stash });
  await compactContext(chat, { stash });
  const [turns, plains, estimates] = [[], [], []];
  let longest = 0;
  for (let r = 0; r <= turnsPerRun * runs; r++) {
    chat.splice(-1, 0, { role: 'assistant', content: `reply ${r}` }, { role: 'user', content: `question ${r}` });
    const turn = await withLongTasks(() => compactContext(chat, { stash }));
    let t0 = performance.now();
    estimate(chat, { model: 'gpt-4o', stash });
    const e = performance.now() - t0;
    t0 = performance.now();
    plainResent(chat, new Map(), new Map(), pageHost);
    const p = performance.now() - t0;
    if (r > 0) { turns.push(turn.ms); plains.push(p); estimates.push(e); longest = Math.max(longest, turn.longest); }
  }
  stash.close();
  await deleteDb(name);
  return { messages: chat.length, turn: median(turns), plain: median(plains), estimate: median(estimates), longest };
};

window.resentReady = true;
