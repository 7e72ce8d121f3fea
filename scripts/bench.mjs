// `npm run bench`: ctxpack against plain JavaScript implementations of the
// same algorithm, measured in the same run on the same inputs — in headless
// Chromium (IndexedDB) and in Node (memory and file stash). Prints a table of
// medians and ratios; writes bench-results/bench.json.
//
//   big     100 messages, 30 distinct ~1 MB images, into a fresh stash
//   many    1,000 messages, 300 images of ~50 KB
//   steady  the compacted big history plus one turn with one new image
//   idle    the compacted big history sent again with nothing new
//   md5     throughput over 1 MB and 32-byte strings
//   fit     one 12-megapixel JPEG fitted to a 1568-px model: in Chromium
//           against a plain canvas resize (the floor), in Node against
//           jimp (pure JavaScript) and sharp (native libvips)
//
//   markdown  parseMarkdownImages on pathological inputs of 100 and 200 KB
//           against commonmark.js (bench/markdown.mjs), with toMultimodal
//           and hasMultimedia on the same texts
//
// BENCH_ONLY=node-fit runs only the Node fitting rows (no browser), and
// writes bench-results/bench-node-fit.json. BENCH_ONLY=markdown runs only
// the markdown rows, and writes bench-results/bench-markdown.json.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const runs = Number(process.env.BENCH_RUNS || 5);
const nodeFitOnly = process.env.BENCH_ONLY === 'node-fit';
const markdownOnly = process.env.BENCH_ONLY === 'markdown';
const nodeOnly = nodeFitOnly || markdownOnly;
execFileSync('bash', ['scripts/setup.sh', '--test'], { cwd: root, stdio: 'inherit' });
execFileSync(process.execPath, ['scripts/build.mjs', '--quiet'], { cwd: root, stdio: 'inherit' });

const { serve } = await import('./serve.mjs');
const { launch } = await import('../tests/js/support/browser.mjs');
const { conversation, imageOfSize } = await import('../bench/workload.mjs');

const outDir = path.join(root, 'bench-results');
mkdirSync(outDir, { recursive: true });
async function workload(name, make) {
  const file = path.join(outDir, `workload-${name}.json`);
  if (!existsSync(file)) {
    console.error(`[bench] generating workload ${name}`);
    writeFileSync(file, JSON.stringify(await make()));
  }
  return readFileSync(file);
}
const big = await workload('big', () => conversation({ count: 100, images: 30, imageB64: 1 << 20 }));
const many = await workload('many', () => conversation({ count: 1000, images: 300, imageB64: 50 * 1024, seed: 2 }));
const steadyImage = await workload('steady-image', () => imageOfSize(1 << 20, 9999, 'jpeg'));
const { makeImage } = await import('../tests/fixtures/make.mjs');
const photo12mp = (await makeImage('jpeg', 4000, 3000, 12)).toString('base64');
const FIT_MODEL = 'claude-sonnet-4-5';

const json = (body) => (req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body);
const server = nodeOnly ? null : await serve({ routes: { '/bench/workload-big.json': json(big), '/bench/workload-many.json': json(many), '/bench/steady-image.json': json(steadyImage) } });
const browser = nodeOnly ? null : await launch();
const result = { date: new Date().toISOString(), runs, browser: {}, node: {} };
let ctxMs = 0;
const line = (name, ms, base) => { if (!base) ctxMs = ms; console.log(`  ${name.padEnd(42)} ${ms.toFixed(1).padStart(9)} ms ${base ? `${(base / ctxMs).toFixed(2).padStart(7)}×` : ''}`); };
try {
  if (!nodeOnly) {
  const page = await browser.newPage();
  await page.goto(`${server.url}/bench/index.html`);
  await page.waitForFunction(() => window.benchReady === true);
  for (const name of ['big', 'many']) {
    const out = await page.evaluate((args) => window.runBench(args), { workload: `/bench/workload-${name}.json`, runs });
    result.browser[name] = out;
    const r = out.results;
    console.log(`\n${name}: ${out.messages} messages, ${out.images} images, ${(out.imageBytes / 1048576).toFixed(1)} MiB of base64 (Chromium, IndexedDB; median of ${runs}; × = speed-up of ctxpack)`);
    for (const [impl, v] of Object.entries(r)) line(impl, v.median, impl === 'ctxpack' ? null : v.median);
    console.log(`  ctxpack: ${(r['spark-md5 + IndexedDB put per image'].median / r.ctxpack.median).toFixed(2)}× faster than spark-md5 + IndexedDB; ${(r.ctxpack.median / r['floor (hash-wasm + one transaction)'].median).toFixed(2)}× the floor; wasm memory ${(out.wasmMemoryBytes / 1048576).toFixed(1)} MiB`);
  }
  const steady = await page.evaluate((args) => window.runSteady(args), { workload: '/bench/workload-big.json', runs });
  result.browser.steady = steady;
  console.log(`\nsteady: ${steady.steady.toFixed(1)} ms for one new ~1 MB image (floor ${steady.steadyFloor.toFixed(1)} ms: ${(steady.steady / steady.steadyFloor).toFixed(2)}× the floor)`);
  console.log(`idle: ${steady.idle.toFixed(2)} ms for ${steady.messages} messages with nothing new`);
  const fitPage = await browser.newPage();
  await fitPage.goto(`${server.url}/bench/fit.html`);
  await fitPage.waitForFunction(() => window.fitReady === true);
  const fit = await fitPage.evaluate((args) => window.runFit(args), { jpeg: photo12mp, model: FIT_MODEL, runs });
  result.browser.fit = fit;
  console.log(`\nfit in Chromium: one 4000×3000 JPEG to ${FIT_MODEL} (${fit.after.width}×${fit.after.height}, ${(fit.before.bytes / 1024).toFixed(0)} KiB → ${(fit.after.bytes / 1024).toFixed(0)} KiB, ${fit.after.tokens} tokens)`);
  console.log(`  fitContext (canvas path) ${fit.ctxpack.toFixed(1).padStart(8)} ms`);
  console.log(`  plain canvas resize      ${fit.canvas.toFixed(1).padStart(8)} ms   ctxpack is ${(fit.ctxpack / fit.canvas).toFixed(2)}× the floor`);
  const md5 = await page.evaluate((args) => window.runMd5(args), { runs });
  result.browser.md5 = md5;
  console.log('\nmd5 in Chromium:');
  for (const [impl, v] of Object.entries(md5)) {
    console.log(`  ${impl.padEnd(12)} ${v.mbPerS.toFixed(0).padStart(6)} MB/s over 1 MB (${(v.mbPerS / md5['hash-wasm'].mbPerS).toFixed(2)}× hash-wasm)   ${Math.round(v.smallPerS).toLocaleString().padStart(10)} hashes/s of 32 bytes`);
  }
  }
} finally {
  await browser?.close();
  await server?.close();
}

// Node: the nodejs build with the memory and the file stash against node:crypto + a Map.
const require = createRequire(import.meta.url);
const ctx = require(path.join(root, 'dist/node/index.js'));
const { fileStash } = require(path.join(root, 'dist/node/file-stash.js'));
const messages = JSON.parse(big.toString());
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
async function time(fn) {
  const ts = [];
  for (let i = 0; i <= runs; i++) {
    const t0 = performance.now();
    await fn();
    if (i > 0) ts.push(performance.now() - t0);
  }
  return median(ts);
}
function nodeBaseline(map) {
  let newest = messages.length - 1;
  while (newest >= 0 && messages[newest].role !== 'user') newest--;
  return messages.map((m, i) => {
    if (i >= newest || !Array.isArray(m.content)) return m;
    return { ...m, content: m.content.map((p) => {
      const url = p.type === 'image_url' && p.image_url.url;
      if (!url || !url.startsWith('data:')) return p;
      const b64 = url.slice(url.indexOf(',') + 1);
      const id = createHash('md5').update(b64).digest('hex');
      map.set(id, { id, mime: url.slice(5, url.indexOf(';')), data: b64 });
      return { type: 'text', text: `[Picture:history_${id}]` };
    }) };
  });
}
if (!nodeOnly) {
const nodeCrypto = await time(async () => nodeBaseline(new Map()));
const nodeMemory = await time(async () => {
  const stash = await ctx.Stash.open({ backend: 'memory' });
  await ctx.compactContext(messages, { stash });
  stash.free();
});
const dirs = [];
const nodeFile = await time(async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ctxpack-bench-'));
  dirs.push(dir);
  const stash = await ctx.Stash.open({ backend: fileStash(dir) });
  await ctx.compactContext(messages, { stash });
  stash.close();
});
for (const d of dirs) rmSync(d, { recursive: true, force: true });
result.node = { nodeCrypto, nodeMemory, nodeFile };
console.log(`\nNode big: node:crypto + Map ${nodeCrypto.toFixed(1)} ms; ctxpack memory stash ${nodeMemory.toFixed(1)} ms (${(nodeMemory / nodeCrypto).toFixed(2)}× the baseline's time); file stash ${nodeFile.toFixed(1)} ms`);
}

// Node: markdown pathological inputs, ctxpack against commonmark.js.
if (!nodeFitOnly) {
  const { benchMarkdown } = await import('../bench/markdown.mjs');
  result.node.markdown = await benchMarkdown(ctx, { runs, commonmark: require.resolve('commonmark') });
}
if (markdownOnly) {
  writeFileSync(path.join(outDir, 'bench-markdown.json'), JSON.stringify(result, null, 2) + '\n');
  process.exit(0);
}

// Node fitting: the codec module against jimp and sharp, same image, same size.
const { Jimp } = await import('jimp');
const sharp = (await import('sharp')).default;
const fitMessages = [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: photo12mp } }, { type: 'text', text: 'what is this?' }] }];
let fitReport;
const nodeFit = await time(async () => {
  ({ report: fitReport } = await ctx.fitContext(fitMessages, { model: FIT_MODEL }));
});
const { width: fw, height: fh } = fitReport.images[0].after;
const jimpMs = await time(async () => {
  const img = await Jimp.read(Buffer.from(photo12mp, 'base64'));
  img.resize({ w: fw, h: fh });
  (await img.getBuffer('image/jpeg', { quality: 85 })).toString('base64');
});
const sharpMs = await time(async () => {
  (await sharp(Buffer.from(photo12mp, 'base64')).resize(fw, fh).jpeg({ quality: 85 }).toBuffer()).toString('base64');
});
result.node.fit = { ctxpack: nodeFit, jimp: jimpMs, sharp: sharpMs, width: fw, height: fh };
console.log(`\nfit in Node: one 4000×3000 JPEG to ${FIT_MODEL} (${fw}×${fh}); × = time relative to ctxpack`);
console.log(`  fitContext (codec module) ${nodeFit.toFixed(1).padStart(8)} ms`);
console.log(`  jimp (pure JavaScript)    ${jimpMs.toFixed(1).padStart(8)} ms   ctxpack is ${(jimpMs / nodeFit).toFixed(2)}× faster`);
console.log(`  sharp (native libvips)    ${sharpMs.toFixed(1).padStart(8)} ms   ctxpack takes ${(nodeFit / sharpMs).toFixed(2)}× sharp's time`);

const wasm = readFileSync(path.join(root, 'dist/web/ctxpack_bg.wasm'));
const codec = readFileSync(path.join(root, 'dist/web/codec/ctxpack_codec_bg.wasm'));
result.size = { raw: wasm.length, gzip: gzipSync(wasm, { level: 9 }).length, codec: { raw: codec.length, gzip: gzipSync(codec, { level: 9 }).length } };
console.log(`\nrelease wasm: ${(result.size.raw / 1024).toFixed(1)} KiB, ${(result.size.gzip / 1024).toFixed(1)} KiB gzipped; codec module ${(result.size.codec.raw / 1024).toFixed(1)} KiB, ${(result.size.codec.gzip / 1024).toFixed(1)} KiB gzipped (loaded on first use)`);
writeFileSync(path.join(outDir, nodeFitOnly ? 'bench-node-fit.json' : 'bench.json'), JSON.stringify(result, null, 2) + '\n');
