// Two builds of the Node package side by side in one process, the two
// builds called in turn so that the machine's changes of pace fall on both
// alike: a long chat sent again (2,001 messages of text, every third user
// turn holding a placeholder) under compactContext and estimate, the same
// chat as new objects (a first send) under compactContext, and the
// benchmark's re-sent turn (its 30 × 1 MB history, the originals, with one
// new image each turn) under compactContext, and estimate of that history
// the first time its strings are seen.
//
//   node bench/compare-builds.mjs <dist before> [<dist after>]
//
// Each argument is a built package's dist/ folder (a copy of an earlier
// build's, say); the second defaults to this checkout's. Prints the minimum,
// first quartile and median of each, in milliseconds.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { variant } from './variants.js';
import { conversation, imageOfSize } from './workload.mjs';

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
const [before, after = path.join(here, '../dist')] = process.argv.slice(2);
if (!before) {
  console.error('usage: node bench/compare-builds.mjs <dist before> [<dist after>]');
  process.exit(2);
}
const builds = [['before', before], ['after', after]].map(([name, dist]) => ({ name, ctx: require(path.resolve(dist, 'node/index.js')) }));

const chat = [];
for (let i = 0; i < 1000; i++) {
  chat.push({ role: 'user', content: [{ type: 'text', text: `message ${i}` }, ...(i % 3 === 0 ? [{ type: 'text', text: `[Picture:history_${createHash('md5').update(String(i)).digest('hex')}]` }] : [])] });
  chat.push({ role: 'assistant', content: `reply ${i}` });
}
chat.push({ role: 'user', content: 'and now?' });

for (const b of builds) {
  b.stash = await b.ctx.Stash.open({ backend: 'memory' });
  b.compact = [];
  b.estimate = [];
}
const RUNS = 60;
const WARM = 10;
for (let r = 0; r < RUNS + WARM; r++) {
  for (const b of builds) {
    let t0 = performance.now();
    await b.ctx.compactContext(chat, { stash: b.stash });
    const c = performance.now() - t0;
    t0 = performance.now();
    b.ctx.estimate(chat, { provider: 'openai' });
    const e = performance.now() - t0;
    if (r >= WARM) { b.compact.push(c); b.estimate.push(e); }
  }
}
const summary = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  return `min ${s[0].toFixed(2)}  p25 ${s[s.length >> 2].toFixed(2)}  median ${s[s.length >> 1].toFixed(2)}`;
};
console.log(`a ${chat.length}-message chat sent again, ${RUNS} runs each`);
for (const b of builds) {
  console.log(`${b.name.padEnd(6)} compactContext ${summary(b.compact)}   estimate ${summary(b.estimate)}`);
}

// The same chat as a first send, or as a server receives it: new objects
// each time (parsed from the request body), which no earlier call read.
const body = JSON.stringify(chat);
for (const b of builds) b.first = [];
for (let r = 0; r < RUNS + WARM; r++) {
  for (const b of builds) {
    const messages = JSON.parse(body);
    const t0 = performance.now();
    await b.ctx.compactContext(messages, { stash: b.stash });
    if (r >= WARM) b.first.push(performance.now() - t0);
  }
}
console.log(`that chat as new objects (a first send; a server parsing each request), ${RUNS} runs each`);
for (const b of builds) console.log(`${b.name.padEnd(6)} compactContext ${summary(b.first)}`);

// The re-sent turn: the benchmark's workloads (made and kept in
// bench-results/ as scripts/bench.mjs makes them, if it has not yet).
async function workload(name, make) {
  const dir = path.join(here, '../bench-results');
  const file = path.join(dir, `workload-${name}.json`);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, JSON.stringify(await make()));
  }
  return JSON.parse(readFileSync(file, 'utf8'));
}
const history = await workload('big', () => conversation({ count: 100, images: 30, imageB64: 1 << 20 }));
const image = await workload('steady-image', () => imageOfSize(1 << 20, 9999, 'jpeg'));
for (const b of builds) {
  b.stash.free();
  b.stash = await b.ctx.Stash.open({ backend: 'memory' });
  await b.ctx.compactContext(history, { stash: b.stash });
  b.turn = [];
}
// Each build and run a new image: variants k (one letter 2 KB in) and, past
// the 63 of those, one more letter 3 KB in.
let k = 0;
const newImage = () => {
  const v = variant(image.b64, ++k);
  const i = 3072 + Math.floor(k / 63);
  return v.slice(0, i) + (v[i] === 'A' ? 'B' : 'A') + v.slice(i + 1);
};
for (let r = 0; r < RUNS + WARM; r++) {
  for (const b of builds) {
    const turn = [...history.slice(0, -1),
      { role: 'user', content: [{ type: 'text', text: 'one more' }, { type: 'image_url', image_url: { url: `data:${image.mime};base64,${newImage()}` } }] },
      { role: 'assistant', content: 'seen' }, { role: 'user', content: 'and now?' }];
    const t0 = performance.now();
    const { report } = await b.ctx.compactContext(turn, { stash: b.stash });
    const t = performance.now() - t0;
    if (report.written !== 1) throw new Error(`${b.name}: a re-sent turn wrote ${report.written}`);
    if (r >= WARM) b.turn.push(t);
  }
}
console.log(`a re-sent turn (${history.length + 2} messages: 30 images of ~1 MB, the originals, + 1 new image), ${RUNS} runs each`);
for (const b of builds) console.log(`${b.name.padEnd(6)} compactContext ${summary(b.turn)}`);

// estimate of the history, its payloads new to both builds (each changed in
// one letter 2 KB in, past its header, and made flat as JSON.parse makes
// strings): what an app estimating after a reload pays.
let fresh = 0;
const newHistory = () => {
  fresh++;
  return history.map((m) => (Array.isArray(m.content) ? { ...m, content: m.content.map((p) => {
    if (!p.image_url) return p;
    const url = p.image_url.url;
    const i = url.indexOf(',') + 2048 + (fresh % 1000);
    return { ...p, image_url: { ...p.image_url, url: JSON.parse(JSON.stringify(url.slice(0, i) + (url[i] === 'A' ? 'B' : 'A') + url.slice(i + 1))) } };
  }) } : m));
};
for (const b of builds) b.estimateFirst = [];
for (let r = 0; r < RUNS / 2 + WARM; r++) {
  for (const b of builds) {
    const messages = newHistory();
    const t0 = performance.now();
    b.ctx.estimate(messages, { provider: 'openai' });
    if (r >= WARM) b.estimateFirst.push(performance.now() - t0);
  }
}
console.log(`estimate of that history, its payloads seen for the first time, ${RUNS / 2} runs each`);
for (const b of builds) console.log(`${b.name.padEnd(6)} estimate ${summary(b.estimateFirst)}`);
