// Two builds of the Node package side by side in one process, on a long chat
// sent again (2,001 messages of text, every third user turn holding a
// placeholder): compactContext and estimate, the two builds called in turn so
// that the machine's changes of pace fall on both alike.
//
//   node bench/compare-builds.mjs <dist before> [<dist after>]
//
// Each argument is a built package's dist/ folder (a copy of an earlier
// build's, say); the second defaults to this checkout's. Prints the minimum,
// first quartile and median of each, in milliseconds.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

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
