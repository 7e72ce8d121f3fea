// The markdown rows of `npm run bench`: ctxpack's parseMarkdownImages (the
// nodejs build, extras module) against commonmark.js `new Parser().parse`
// on the pathological inputs CommonMark implementations test against
// (commonmark.js test/test.js and cmark test/pathological_tests.py) and on
// the shapes that used to make ctxpack superlinear (deeply nested containers
// kept open over many lines). Each input is a shape of about 100 KB (and
// 200 KB, for ctxpack's doubling ratio) between two images, so no prefilter
// skips the parse. commonmark.js runs in a worker and is stopped after
// BENCH_CM_TIMEOUT_MS (default 10 s): it is itself quadratic on some shapes.
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

const r = (s, n) => s.repeat(Math.max(1, Math.floor(n)));
const lines = (t, line) => { let s = ''; for (let i = 0; s.length < t; i++) s += line(i); return s; };
const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

/** [name, shape of about `t` bytes] for each input. */
export const SHAPES = [
  // The baseline: ordinary markdown.
  ['ordinary markdown (the README, repeated)', (t) => readme.repeat(Math.ceil(t / readme.length)).slice(0, t)],
  // commonmark.js test/test.js and cmark test/pathological_tests.py.
  ['nested strong emph', (t) => r('*a **a ', t / 14) + 'b' + r(' a** a*', t / 14)],
  ['emph closers with no openers', (t) => r('a_ ', t / 3)],
  ['emph openers with no closers', (t) => r('_a ', t / 3)],
  ['openers and closers multiple of 3', (t) => 'a**b' + r('c* ', t / 3)],
  ['#172 *_* _', (t) => r('*_* _ ', t / 6)],
  ['#389 *a then _a*_', (t) => r('*a ', t / 8) + r('_a*_ ', t / 8)],
  ['link closers with no openers', (t) => r('a] ', t / 3)],
  ['link openers with no closers', (t) => r('[a ', t / 3)],
  ['link openers and emph closers', (t) => r('[ a_ ', t / 5)],
  ['mismatched openers and closers', (t) => r('*a_ ', t / 4)],
  ['pattern [ (](', (t) => r('[ (](', t / 5)],
  ['pattern ![[]()', (t) => r('![[]()', t / 6)],
  ['pattern [](', (t) => r('[](', t / 3) + '\n'],
  ['nested brackets', (t) => r('[', t / 2) + 'a' + r(']', t / 2)],
  ['nested block quotes', (t) => r('> ', t / 2) + 'a\n'],
  ['[ and backslashes', (t) => '[' + r('\\', t) + '\n'],
  ['backslashes in unclosed link title', (t) => '[test](\\url "' + r('\\', t) + '\n'],
  ['deeply nested lists', (t) => lines(t, (i) => '  '.repeat(i) + '* a\n')],
  ['backtick runs', (t) => lines(t, (i) => 'e' + '`'.repeat(i + 1))],
  ['unclosed links <', (t) => r('[a](<b', t / 6)],
  ['unclosed links', (t) => r('[a](b', t / 5)],
  ['unclosed <!--', (t) => '</' + r('<!--', t / 4)],
  ['empty lines in nested lists', (t) => r('- ', t / 4) + 'x' + r('\n', t / 2)],
  ['empty lines in nested lists in quote', (t) => '> ' + r('- ', t / 4) + 'x\n' + r('>\n', t / 4)],
  ['emph in deep block quote', (t) => r('>', t / 3) + r('a*', t / 3)],
  ['nested inlines', (t) => r('*', t / 2) + 'a' + r('*', t / 2)],
  ['many references', (t) => lines(t * 0.9, (i) => `[${i}]: u\n`) + r('[0] ', t / 40)],
  ['references and uses', (t) => lines(t, (i) => `[x${i}]: /url\n\n[x0]\n\n`)],
  // Images.
  ['image openers ![', (t) => r('![', t / 2)],
  ['unclosed images', (t) => r('![a](b', t / 6)],
  ['unclosed image destinations <', (t) => r('![a](<b', t / 7)],
  ['nested images', (t) => r('![', t / 6) + 'a' + r('](b)', t / 6)],
  ['many images', (t) => r('![a](b.png) ', t / 12)],
  ['many reference images', (t) => lines(10_000, (i) => `[r${i}]: u${i}.png\n`) + '\n' + r('![x][r5] ', (t - 10_000) / 9)],
  // Deeply nested containers kept open over many lines.
  ['nested list, open fence, blank lines', (t) => r('- ', t / 4) + '```\n' + r('\n', t / 2)],
  ['the same, CRLF', (t) => r('- ', t / 4) + '```\r\n' + r('\r\n', t / 4)],
  ['indented nested list, open fence, blank lines', (t) => lines(t / 2, (i) => '  '.repeat(i) + '- a\n') + '```\n' + r('\n', t / 2)],
  ['ordered list, open fence, blank lines', (t) => r('1. ', t / 6) + '```\n' + r('\n', t / 2)],
  ['nested list, indented code, blank lines', (t) => r('- ', t / 4) + '    a\n' + r('\n', t / 2)],
  ['nested list, open <!--, blank lines', (t) => r('- ', t / 4) + '<!--\n' + r('\n', t / 2)],
  ['nested quotes, lazy lines', (t) => r('> ', t / 4) + 'a\n' + r('b\n', t / 4)],
];

/** The input: the shape of about `t` bytes between two images. */
export const input = (shape, t) => `![first](${PNG})\n\n${shape(t)}\n\n![last](${PNG})\n`;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Repetitions of `fn` that take at least `sampleMs` ms. */
async function repsFor(fn, sampleMs) {
  const t0 = performance.now();
  await fn();
  return Math.max(1, Math.ceil(sampleMs / Math.max(performance.now() - t0, 0.01)));
}

/**
 * Median milliseconds of one call of each of `fns`, their samples taken in
 * turn (so a busy machine slows each alike), each sample repeated to last
 * at least `sampleMs` ms.
 */
async function timesOf(fns, runs, sampleMs) {
  const reps = [];
  for (const fn of fns) reps.push(await repsFor(fn, sampleMs));
  const samples = fns.map(() => []);
  for (let i = 0; i < runs; i++) {
    for (const [k, fn] of fns.entries()) {
      const t0 = performance.now();
      for (let j = 0; j < reps[k]; j++) await fn();
      samples[k].push((performance.now() - t0) / reps[k]);
    }
  }
  return samples.map(median);
}

const workerCode = `
const { parentPort, workerData } = require('node:worker_threads');
const { Parser } = require(workerData.commonmark);
const { text, runs } = workerData;
const times = [];
let total = 0;
for (let i = 0; i <= runs && total < 3000; i++) {
  const t0 = performance.now();
  new Parser().parse(text);
  const ms = performance.now() - t0;
  total += ms;
  if (i > 0 || ms > 1000) times.push(ms);
}
times.sort((a, b) => a - b);
parentPort.postMessage(times[Math.floor(times.length / 2)]);
`;

/** commonmark.js's median parse time of `text` in a worker, or null past `timeoutMs`. */
function commonmarkTime(commonmark, text, runs, timeoutMs) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerCode, { eval: true, workerData: { commonmark, text, runs } });
    const timer = setTimeout(() => { worker.terminate(); resolve(null); }, timeoutMs);
    worker.once('message', (ms) => { clearTimeout(timer); worker.terminate(); resolve(ms); });
    worker.once('error', (e) => { clearTimeout(timer); reject(e); });
  });
}

/**
 * Times every shape; prints a table and returns the rows. `ctx` is the
 * package's nodejs build; `commonmark` the path of commonmark.js.
 */
export async function benchMarkdown(ctx, { runs, commonmark, sizes = [100_000, 200_000], sampleMs = 20, shapes = SHAPES.length }) {
  const timeoutMs = Number(process.env.BENCH_CM_TIMEOUT_MS || 10_000);
  const [small, large] = sizes;
  console.log(`\nmarkdown pathological inputs in Node (median of ${runs}; ${small / 1000} KB and ${large / 1000} KB; commonmark.js stopped after ${timeoutMs / 1000} s)`);
  console.log(`  ${'input'.padEnd(46)} ${'100 KB'.padStart(9)} ${'200 KB'.padStart(9)} ${'×2 →'.padStart(6)} ${'cm.js'.padStart(9)} ${'ctx/cm'.padStart(7)} ${'toMultimodal'.padStart(12)} ${'hasMultimedia'.padStart(13)} images`);
  const rows = [];
  for (const [name, shape] of SHAPES.slice(0, shapes)) {
    const text = input(shape, small);
    const text2 = input(shape, large);
    const messages = [{ role: 'user', content: text }];
    const [ms, ms2, toMultimodalMs, hasMultimediaMs] = await timesOf([
      () => ctx.parseMarkdownImages(text),
      () => ctx.parseMarkdownImages(text2),
      () => ctx.toMultimodal(text),
      () => ctx.hasMultimedia(messages),
    ], runs, sampleMs);
    const images = ctx.parseMarkdownImages(text).length;
    const cm = await commonmarkTime(commonmark, text, runs, timeoutMs);
    const row = {
      name, bytes: text.length, ms, bytes200: text2.length, ms200: ms2, doubling: ms2 / ms,
      commonmarkMs: cm, ratio: cm === null ? null : ms / cm, toMultimodalMs, hasMultimediaMs, images,
    };
    rows.push(row);
    const f = (x) => (x < 10 ? x.toFixed(2) : x.toFixed(1)).padStart(9);
    const cmText = cm === null ? `>${timeoutMs / 1000} s`.padStart(9) : f(cm);
    const ratio = cm === null ? `<${(ms / timeoutMs).toFixed(3)}` : (ms / cm).toFixed(2);
    console.log(`  ${name.padEnd(46)} ${f(ms)} ${f(ms2)} ${row.doubling.toFixed(2).padStart(6)} ${cmText} ${ratio.padStart(7)} ${f(toMultimodalMs).padStart(12)} ${f(hasMultimediaMs).padStart(13)} ${images}`);
  }
  const worst = (key) => rows.reduce((a, b) => ((b[key] ?? 0) > (a[key] ?? 0) ? b : a));
  const d = worst('doubling');
  const q = worst('ratio');
  console.log(`  worst doubling ratio ${d.doubling.toFixed(2)} (${d.name}); worst ratio to commonmark.js ${q.ratio.toFixed(2)}× (${q.name}); ms are per call`);
  return { sizes, timeoutMs, rows };
}
