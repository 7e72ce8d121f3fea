// `npm run bench`: compaction of 100 messages holding 30 distinct ~1 MB
// images into a fresh IndexedDB stash, in headless Chromium, against plain
// JavaScript implementations of the same algorithm measured in the same run.
// Prints a table of medians and ratios; writes bench-results/bench.json.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const runs = Number(process.env.BENCH_RUNS || 5);
execFileSync('bash', ['scripts/setup.sh'], { cwd: root, stdio: 'inherit' });
execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });

const { serve } = await import('./serve.mjs');
const { launch } = await import('../tests/js/support/browser.mjs');
const { conversation } = await import('../bench/workload.mjs');

const outDir = path.join(root, 'bench-results');
mkdirSync(outDir, { recursive: true });
const workloadFile = path.join(outDir, 'workload-big.json');
if (!existsSync(workloadFile)) {
  console.error('[bench] generating workload: 100 messages, 30 distinct images of ~1 MB base64');
  writeFileSync(workloadFile, JSON.stringify(await conversation({ count: 100, images: 30, imageB64: 1 << 20 })));
}
const workload = readFileSync(workloadFile);

const server = await serve({
  routes: { '/bench/workload-big.json': (req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(workload) },
});
const browser = await launch();
try {
  const page = await browser.newPage();
  await page.goto(`${server.url}/bench/index.html`);
  await page.waitForFunction(() => window.benchReady === true);
  const out = await page.evaluate((args) => window.runBench(args), { workload: '/bench/workload-big.json', runs });
  const base = out.results['spark-md5 + IndexedDB put per image'].median;
  const floor = out.results['floor (hash-wasm + one transaction)'].median;
  const ctx = out.results.ctxpack.median;
  console.log(`\nbig: ${out.messages} messages, ${out.images} distinct images, ${(out.imageBytes / 1048576).toFixed(1)} MiB of base64 — median of ${runs} runs after a warm-up, headless Chromium`);
  console.log(`${'implementation'.padEnd(40)} ${'median ms'.padStart(10)} ${'ctxpack speed-up'.padStart(17)}`);
  for (const [name, r] of Object.entries(out.results)) {
    console.log(`${name.padEnd(40)} ${r.median.toFixed(1).padStart(10)} ${(r.median / ctx).toFixed(2).padStart(16)}×`);
  }
  console.log(`\nctxpack vs spark-md5 + IndexedDB: ${(base / ctx).toFixed(2)}× faster`);
  console.log(`ctxpack vs the floor: ${(ctx / floor).toFixed(2)}× the floor's time`);
  console.log(`wasm linear memory at the end: ${(out.wasmMemoryBytes / 1048576).toFixed(1)} MiB`);
  writeFileSync(path.join(outDir, 'bench.json'), JSON.stringify({ date: new Date().toISOString(), runs, ...out }, null, 2) + '\n');
} finally {
  await browser.close();
  await server.close();
}
