// `npm run bench`: ctxpack against plain JavaScript implementations of the
// same algorithm, measured in the same run on the same inputs — in headless
// Chromium (IndexedDB) and in Node (memory and file stash). Prints a table of
// medians and ratios; writes bench-results/bench.json.
//
//   big     100 messages, 30 distinct ~1 MB images, into a fresh stash
//   many    1,000 messages, 300 images of ~50 KB
//   re-sent the app keeps its 30 original ~1 MB images and sends the whole
//           history again each turn, with one new image: in Chromium against
//           the floor of that turn (hash-wasm on the new image + one
//           IndexedDB transaction), in Node against node:crypto on the new
//           image + a Map; with the longest main-thread task of each send
//   long tasks  the longest main-thread task of compactContext,
//           expandContext, fitContext, sanitizeToolResult and toMultimodal
//           on the big workload, nothing remembered (a first send)
//   md5     throughput over 1 MB and 32-byte strings
//   fit     one 12-megapixel JPEG fitted to a 1568-px model: in Chromium
//           against a plain canvas resize (the floor), in Node against
//           jimp (pure JavaScript) and sharp (native libvips)
//   markdown  parseMarkdownImages on pathological inputs of 100 and 200 KB against
//           commonmark.js (bench/markdown.mjs), with toMultimodal and hasMultimedia
//
// BENCH_ONLY=<group> runs one group of rows, writing bench-results/bench-<group>.json:
// node-fit (the Node fitting rows, no browser), resent (the re-sent and
// long-task rows), markdown, cache (bench/cache.mjs: sessions compacted turn
// by turn, each slack against slack: false; counts and prices), redis
// (bench/redis.mjs: a turn with an empty store and with 20,000 other records,
// ctxpack/redis against an adapter listing by SCAN), offload
// (bench/offload.mjs: a computer-use session of 50 turns, one new ~1.5 MB
// screenshot each, the last 5 kept, with and without offload; bytes and
// upload counts), loops (bench/loops.mjs: a 50-step computer-use loop),
// proxy (bench/proxy.mjs: ctxpack proxy's time against a server forwarding
// untouched; bytes upstream).
//
// BENCH_SMOKE=1 runs every group once on tiny workloads (bench/sizes.mjs),
// on the package as built, into BENCH_OUT: `npm test` does
// (tests/js/bench_smoke.test.mjs), so that the benchmark keeps running whole.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { agentChat, plainResent } from '../bench/agent-chat.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { SMOKE, SIZES } = await import('../bench/sizes.mjs');
const runs = SIZES.runs;
const nodeFitOnly = process.env.BENCH_ONLY === 'node-fit';
const resentOnly = process.env.BENCH_ONLY === 'resent';
const markdownOnly = process.env.BENCH_ONLY === 'markdown';
const cacheOnly = process.env.BENCH_ONLY === 'cache';
const redisOnly = process.env.BENCH_ONLY === 'redis';
const offloadOnly = process.env.BENCH_ONLY === 'offload';
const proxyOnly = process.env.BENCH_ONLY === 'proxy';
const nodeOnly = nodeFitOnly || markdownOnly || cacheOnly || redisOnly || offloadOnly || proxyOnly || process.env.BENCH_ONLY === 'loops';
if (!SMOKE) {
  execFileSync('bash', ['scripts/setup.sh', '--test'], { cwd: root, stdio: 'inherit' });
  execFileSync(process.execPath, ['scripts/build.mjs', '--quiet'], { cwd: root, stdio: 'inherit' });
}

const { serve } = await import('./serve.mjs');
const { launch } = await import('../tests/js/support/browser.mjs');
const { conversation, imageOfSize } = await import('../bench/workload.mjs');
const { variant, variantMessages } = await import('../bench/variants.js');

const outDir = process.env.BENCH_OUT || path.join(root, 'bench-results', SMOKE ? 'smoke' : '');
mkdirSync(outDir, { recursive: true });
/** Writes the results of the group `name` (BENCH_ONLY) and ends the run. */
function done(name) {
  writeFileSync(path.join(outDir, `bench-${name}.json`), JSON.stringify(result, null, 2) + '\n');
  process.exit(0);
}
async function workload(name, make) {
  const file = path.join(outDir, `workload-${name}.json`);
  if (!existsSync(file)) {
    console.error(`[bench] generating workload ${name}`);
    writeFileSync(file, JSON.stringify(await make()));
  }
  return readFileSync(file);
}
const big = await workload('big', () => conversation(SIZES.big));
const many = await workload('many', () => conversation(SIZES.many));
const steadyImage = await workload('steady-image', () => imageOfSize(SIZES.steadyImage, 9999, 'jpeg'));
const { makeImage } = await import('../tests/fixtures/make.mjs');
const photoBytes = await makeImage('jpeg', ...SIZES.photo, 12);
const PHOTO_SIZE = SIZES.photo.join('×');
const photo12mp = photoBytes.toString('base64');
// The same photo with a JPEG comment naming the run: new text for each run
// (ctxpack remembers what its resizer made of a payload), the same pixels.
const photoRuns = Array.from({ length: runs + 1 }, (_, k) => {
  const note = Buffer.from(`run ${k}`);
  const comment = Buffer.concat([Buffer.from([0xff, 0xfe, 0, note.length + 2]), note]);
  return Buffer.concat([photoBytes.subarray(0, 2), comment, photoBytes.subarray(2)]).toString('base64');
});
const FIT_MODEL = 'claude-sonnet-4-5';

const json = (body) => (req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body);
const server = nodeOnly ? null : await serve({ routes: { '/bench/workload-big.json': json(big), '/bench/workload-many.json': json(many), '/bench/steady-image.json': json(steadyImage) } });
const browser = nodeOnly ? null : await launch();
const result = { date: new Date().toISOString(), runs, browser: {}, node: {} };
let ctxMs = 0;
const line = (name, ms, base) => { if (!base) ctxMs = ms; console.log(`  ${name.padEnd(42)} ${ms.toFixed(1).padStart(9)} ms ${base ? `${(base / ctxMs).toFixed(2).padStart(7)}×` : ''}`); };
try {
  if (!nodeOnly) {
  // A page loaded afresh for each: nothing remembered from another row.
  const freshPage = async (file, ready) => {
    const p = await browser.newPage();
    await p.goto(`${server.url}/bench/${file}`);
    await p.waitForFunction(ready);
    return p;
  };
  const resentPage = await freshPage('resent.html', () => window.resentReady === true);
  const resent = await resentPage.evaluate((args) => window.runResent(args), { workload: '/bench/workload-big.json', fresh: '/bench/steady-image.json', runs });
  await resentPage.close();
  result.browser.resent = resent;
  console.log(`\nre-sent (Chromium, IndexedDB): the app's ${resent.images} original ~1 MB images sent again each turn with one new one; median of ${runs}`);
  console.log(`  first send                     ${resent.first.ms.toFixed(1).padStart(9)} ms   longest task ${resent.first.longest ? `${resent.first.longest.toFixed(0)} ms` : 'under 50 ms'}`);
  console.log(`  a turn (history + 1 new)       ${resent.turn.toFixed(1).padStart(9)} ms   longest task ${resent.longest ? `${resent.longest.toFixed(0)} ms` : 'under 50 ms'}`);
  console.log(`  floor (hash-wasm + 1 transaction) ${resent.floor.toFixed(1).padStart(6)} ms   ctxpack is ${(resent.turn / resent.floor).toFixed(2)}× the floor`);
  const chatPage = await freshPage('resent.html', () => window.resentReady === true);
  const longChat = await chatPage.evaluate((args) => window.runLongChat(args), { fresh: '/bench/steady-image.json', runs, ...SIZES.chat });
  await chatPage.close();
  result.browser.longChat = longChat;
  console.log(`  a ${longChat.messages}-message agent chat kept by the page, 2 new messages a turn: compactContext ${longChat.turn.toFixed(2)} ms; plain JavaScript's walk ${longChat.plain.toFixed(2)} ms; ctxpack ${(longChat.turn / longChat.plain).toFixed(2)}× the walk (goal ≤ 3×); longest task ${longChat.longest ? `${longChat.longest.toFixed(0)} ms` : 'under 50 ms'}; estimate ${longChat.estimate.toFixed(2)} ms`);
  const long = {};
  for (const job of ['compactContext', 'expandContext', 'fitContext', 'sanitizeToolResult', 'toMultimodal']) {
    const longPage = await freshPage('resent.html', () => window.resentReady === true);
    long[job] = await longPage.evaluate((args) => window.runLongTask(args), { workload: '/bench/workload-big.json', model: FIT_MODEL, job, settleMs: SIZES.settleMs });
    await longPage.close();
  }
  result.browser.longTasks = long;
  console.log('\nlongest main-thread task on the big workload, nothing remembered (Chromium; the long-task threshold is 50 ms)');
  for (const [job, v] of Object.entries(long)) console.log(`  ${job.padEnd(20)} ${v.ms.toFixed(1).padStart(9)} ms in all   longest task ${v.longest ? `${v.longest.toFixed(0)} ms (${v.longTasks} over 50 ms)` : 'under 50 ms'}`);
  if (!resentOnly) {
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
  const fitPage = await browser.newPage();
  await fitPage.goto(`${server.url}/bench/fit.html`);
  await fitPage.waitForFunction(() => window.fitReady === true);
  const fit = await fitPage.evaluate((args) => window.runFit(args), { jpegs: photoRuns, model: FIT_MODEL, runs });
  result.browser.fit = fit;
  console.log(`\nfit in Chromium: one ${PHOTO_SIZE} JPEG to ${FIT_MODEL} (${fit.after.width}×${fit.after.height}, ${(fit.before.bytes / 1024).toFixed(0)} KiB → ${(fit.after.bytes / 1024).toFixed(0)} KiB, ${fit.after.tokens} tokens)`);
  console.log(`  fitContext (canvas path) ${fit.ctxpack.toFixed(1).padStart(8)} ms`);
  console.log(`  plain canvas resize      ${fit.canvas.toFixed(1).padStart(8)} ms   ctxpack is ${(fit.ctxpack / fit.canvas).toFixed(2)}× the floor`);
  const md5 = await page.evaluate((args) => window.runMd5(args), { runs });
  result.browser.md5 = md5;
  console.log('\nmd5 in Chromium:');
  for (const [impl, v] of Object.entries(md5)) {
    console.log(`  ${impl.padEnd(12)} ${v.mbPerS.toFixed(0).padStart(6)} MB/s over 1 MB (${(v.mbPerS / md5['hash-wasm'].mbPerS).toFixed(2)}× hash-wasm)   ${Math.round(v.smallPerS).toLocaleString().padStart(10)} hashes/s of 32 bytes`);
  }
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

/** An agent's chat of about `count` messages: tasks, tool calls with JSON results, answers; every third task names a placeholder. */
/** Node's own MD5 and base64 check, for plain JavaScript's walk. */
const scratch = Buffer.allocUnsafe(2 << 20);
const nodeHost = {
  md5: (b64) => createHash('md5').update(b64).digest('hex'),
  validBase64: (b64) => {
    const expected = (b64.length / 4) * 3 - (b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0);
    return b64.length % 4 === 0 && scratch.write(b64, 0, 'base64') === expected;
  },
};

if (!nodeOnly) {
// Re-sent in Node: the memory stash; each turn one new image (a variant of
// the steady image no earlier call has seen). The floor: node:crypto on the
// new image and a Map of records.
{
  const image = JSON.parse(steadyImage.toString());
  const stash = await ctx.Stash.open({ backend: 'memory' });
  await ctx.compactContext(messages, { stash });
  const turns = [];
  const floors = [];
  const plains = [];
  const estimatesFirst = [];
  const estimatesAgain = [];
  const jsMemo = new Map();
  const jsRecords = new Map();
  plainResent(messages, jsMemo, jsRecords, nodeHost);
  for (let r = 0; r <= runs; r++) {
    const b64 = variant(image.b64, r + 1);
    const history = [...messages.slice(0, -1),
      { role: 'user', content: [{ type: 'text', text: 'one more' }, { type: 'image_url', image_url: { url: `data:${image.mime};base64,${b64}` } }] },
      { role: 'assistant', content: 'seen' }, { role: 'user', content: 'and now?' }];
    let t0 = performance.now();
    const { report } = await ctx.compactContext(history, { stash });
    const t = performance.now() - t0;
    if (report.written !== 1) throw new Error(`re-sent turn wrote ${report.written}`);
    const other = variant(image.b64, 1000 + r);
    const records = new Map();
    t0 = performance.now();
    const id = createHash('md5').update(other).digest('hex');
    records.set(id, { id, mime: image.mime, data: other });
    const f = performance.now() - t0;
    // The same turn as plain JavaScript with a memo of its own (another
    // new image, so both hash one): what an app would write by hand.
    const jsHistory = [...history.slice(0, -3), { ...history.at(-3), content: [history.at(-3).content[0], { type: 'image_url', image_url: { url: `data:${image.mime};base64,${variant(image.b64, 2000 + r)}` } }] }, ...history.slice(-2)];
    t0 = performance.now();
    const out = plainResent(jsHistory, jsMemo, jsRecords, nodeHost);
    const j = performance.now() - t0;
    if (out.written !== 1) throw new Error(`plain re-sent turn wrote ${out.written}`);
    // estimate of the same history: the first time for these payloads
    // (each changed in one letter 2 KB in, past its header: new text, the
    // same image sizes), then the same strings sent again. An equal copy of
    // a string would be found in the memo too, at the cost of comparing
    // its text, so the first time gets text no earlier run had.
    const early = (url) => {
      const i = url.indexOf(',') + 2048 + r;
      return JSON.parse(JSON.stringify(url.slice(0, i) + (url[i] === 'A' ? 'B' : 'A') + url.slice(i + 1)));
    };
    const fresh = history.map((m) => (Array.isArray(m.content) ? { ...m, content: m.content.map((p) => (p.image_url ? { ...p, image_url: { ...p.image_url, url: early(p.image_url.url) } } : p)) } : m));
    t0 = performance.now();
    ctx.estimate(fresh, { provider: 'openai', stash });
    const e1 = performance.now() - t0;
    t0 = performance.now();
    ctx.estimate(fresh, { provider: 'openai', stash });
    const e2 = performance.now() - t0;
    if (r > 0) { turns.push(t); floors.push(f); plains.push(j); estimatesFirst.push(e1); estimatesAgain.push(e2); }
  }
  stash.free();
  const turn = median(turns);
  const floor = median(floors);
  const plain = median(plains);
  const estimateFirst = median(estimatesFirst);
  const estimateAgain = median(estimatesAgain);
  result.node.resent = { turn, floor, plain, estimateFirst, estimateAgain };
  console.log(`\nNode re-sent: a turn (30 original images + 1 new) ${turn.toFixed(2)} ms; node:crypto + Map on the new image ${floor.toFixed(2)} ms (${(turn / floor).toFixed(2)}× the floor); plain JavaScript with its own memo ${plain.toFixed(2)} ms (ctxpack ${(turn / plain).toFixed(2)}× its time)`);
  console.log(`Node estimate of that history (OpenAI rules): first time ${estimateFirst.toFixed(2)} ms, sent again ${estimateAgain.toFixed(2)} ms`);
  // An agent's chat the app keeps: 2,000 messages of text, tool calls with
  // JSON results and placeholders of stashed images, two new messages a
  // turn, the same message objects sent again. Against plain JavaScript that
  // walks it the way plainResent does (a new array, each message's parts
  // looked at). Then the same chat as a server receives it: parsed from the
  // request body every turn (new objects: nothing is remembered), against
  // JSON.parse of that body.
  {
    const chatStash = await ctx.Stash.open({ backend: 'memory' });
    const shots = [];
    for (let i = 0; i < 8; i++) shots.push({ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${variant(JSON.parse(steadyImage.toString()).b64, 5000 + i)}` } }] });
    const { messages: stashed } = await ctx.compactContext([...shots, { role: 'user', content: 'ok' }], { stash: chatStash });
    const placeholders = stashed.slice(0, 8).map((m) => m.content[0].text);
    const chat = agentChat(SIZES.chat.messages, placeholders);
    await ctx.compactContext(chat, { stash: chatStash });
    // A stash that has run a while holds the records of other
    // conversations: the same bodies, compacted against a stash holding
    // SIZES.chat.otherRecords small images besides.
    const fullStash = await ctx.Stash.open({ backend: 'memory' });
    const others = [];
    for (let i = 0; i < SIZES.chat.otherRecords; i++) {
      const png = await makeImage('png', 8, 8, 20000 + i);
      others.push({ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } }] });
    }
    const { report: othersReport } = await ctx.compactContext([...others, { role: 'user', content: 'ok' }], { stash: fullStash });
    const textsFull = [];
    const turns = [];
    const estimates = [];
    const fits = [];
    const plains = [];
    const served = [];
    const parses = [];
    const texts = [];
    for (let r = 0; r < SIZES.chat.turnsPerRun * runs + 1; r++) {
      chat.splice(-1, 0, { role: 'assistant', content: `reply ${r}` }, { role: 'user', content: `question ${r}` });
      let t0 = performance.now();
      await ctx.compactContext(chat, { stash: chatStash });
      turns.push(performance.now() - t0);
      t0 = performance.now();
      ctx.estimate(chat, { provider: 'openai', stash: chatStash });
      estimates.push(performance.now() - t0);
      t0 = performance.now();
      await ctx.fitContext(chat, { stash: chatStash, model: 'gpt-4o' });
      fits.push(performance.now() - t0);
      t0 = performance.now();
      plainResent(chat, new Map(), new Map(), nodeHost);
      plains.push(performance.now() - t0);
      const body = JSON.stringify({ messages: chat });
      t0 = performance.now();
      JSON.parse(body);
      parses.push(performance.now() - t0);
      t0 = performance.now();
      await ctx.compactContext(JSON.parse(body).messages, { stash: chatStash });
      served.push(performance.now() - t0);
      t0 = performance.now();
      await ctx.compactRequestBody(body, { stash: chatStash });
      texts.push(performance.now() - t0);
      t0 = performance.now();
      await ctx.compactRequestBody(body, { stash: fullStash });
      textsFull.push(performance.now() - t0);
    }
    const [longTurn, longEstimate, longFit, longPlain, longServed, longParse, longText, longTextFull] = [turns, estimates, fits, plains, served, parses, texts, textsFull].map(median);
    chatStash.free();
    fullStash.free();
    result.node.longChat = { messages: chat.length, turn: longTurn, estimate: longEstimate, fit: longFit, plain: longPlain, served: longServed, parse: longParse, text: longText };
    console.log(`Node, a ${chat.length}-message agent chat the app keeps, 2 new messages a turn: compactContext ${longTurn.toFixed(2)} ms (${((1000 * longTurn) / chat.length).toFixed(2)} µs a message); plain JavaScript's walk ${longPlain.toFixed(2)} ms; ctxpack ${(longTurn / longPlain).toFixed(2)}× the walk (goal ≤ 3×)`);
    console.log(`  estimate of it ${longEstimate.toFixed(2)} ms (${(longEstimate / longPlain).toFixed(1)}× the walk), fitContext for gpt-4o ${longFit.toFixed(2)} ms (${(longFit / longPlain).toFixed(1)}× the walk); both remember messages as compactContext does`);
    console.log(`  as a server receives it, parsed from the body each turn: JSON.parse + compactContext ${longServed.toFixed(2)} ms; JSON.parse alone ${longParse.toFixed(2)} ms (${(longServed / longParse).toFixed(1)}×: new objects each turn, nothing remembered)`);
    console.log(`  the body as text: compactRequestBody ${longText.toFixed(2)} ms; JSON.parse alone ${longParse.toFixed(2)} ms; ctxpack ${(longText / longParse).toFixed(2)}× JSON.parse (goal ≤ 1.0×)`);
    console.log(`  the same with ${othersReport.written} other records in the stash: compactRequestBody ${longTextFull.toFixed(2)} ms (${(longTextFull / longText).toFixed(2)}× with the chat's 8 alone)`);
    result.node.longChat.textWithOthers = { records: othersReport.written, ms: longTextFull };
    // The same chat as the AI SDK hands it to a middleware: a new prompt
    // (LanguageModel messages) for every call. compactContext on it, and
    // what the adapters run (compactPrompt: as text when it is plain JSON).
    const { compactPrompt } = await import(path.join(root, 'dist/adapters/plain-prompt.mjs'));
    const prompt = chat.map((m) => {
      if (m.role === 'tool') return { role: 'tool', content: [{ type: 'tool-result', toolCallId: m.tool_call_id, toolName: 'read_file', output: { type: 'json', value: JSON.parse(m.content) } }] };
      if (m.tool_calls) return { role: 'assistant', content: m.tool_calls.map((c) => ({ type: 'tool-call', toolCallId: c.id, toolName: c.function.name, input: JSON.parse(c.function.arguments) })) };
      if (m.role === 'system') return m;
      return { role: m.role, content: typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content };
    });
    const promptStash = await ctx.Stash.open({ backend: 'memory' });
    const [asObjects, asText] = [[], []];
    for (let r = 0; r < 5 * runs + 1; r++) {
      let fresh = structuredClone(prompt);
      let t0 = performance.now();
      await ctx.compactContext(fresh, { stash: promptStash, format: 'ai-sdk' });
      if (r > 0) asObjects.push(performance.now() - t0);
      fresh = structuredClone(prompt);
      t0 = performance.now();
      await compactPrompt(fresh, { stash: promptStash, format: 'ai-sdk' });
      if (r > 0) asText.push(performance.now() - t0);
    }
    promptStash.free();
    const [promptObjects, promptText] = [asObjects, asText].map(median);
    result.node.longChat.aiSdkPrompt = { objects: promptObjects, adapter: promptText };
    console.log(`  as the AI SDK hands it to the middleware, a new prompt each call: compactContext ${promptObjects.toFixed(2)} ms; the adapters' route (as text) ${promptText.toFixed(2)} ms (${(promptObjects / promptText).toFixed(1)}× faster)`);
  }
  // A tool result holding a screenshot under a known binary field,
  // sanitized before each request: the first time for its payload, then the
  // very same result again. The floor: node:crypto's MD5 of the payload.
  // The same screenshot as the result's whole text (a tool returning the
  // base64 itself), sent again; and under compactContext's
  // sanitizeToolResults, an OpenAI tool message holding it in JSON text, or
  // as its whole content, the history sent again.
  const firsts = [];
  const agains = [];
  const hashes = [];
  const textAgains = [];
  const compactFirsts = [];
  const compactAgains = [];
  const compactBareAgains = [];
  const sanitizeStash = await ctx.Stash.open({ backend: 'memory' });
  for (let r = 0; r <= runs; r++) {
    const result = { success: true, metadata: { imageBase64: variant(image.b64, 3000 + r), model: 'flux' } };
    let t0 = performance.now();
    const out = await ctx.sanitizeToolResult(result, { stash: sanitizeStash });
    const first = performance.now() - t0;
    if (!out.metadata.imageBase64.startsWith('[Binary:history_')) throw new Error('the screenshot was not stashed');
    t0 = performance.now();
    await ctx.sanitizeToolResult(result, { stash: sanitizeStash });
    const again = performance.now() - t0;
    const other = variant(image.b64, 4000 + r);
    t0 = performance.now();
    createHash('md5').update(other).digest('hex');
    const hash = performance.now() - t0;
    const text = variant(image.b64, 5000 + r);
    await ctx.sanitizeToolResult(text, { stash: sanitizeStash });
    t0 = performance.now();
    const textOut = await ctx.sanitizeToolResult(text, { stash: sanitizeStash });
    const textAgain = performance.now() - t0;
    if (!textOut.startsWith('[Binary:history_')) throw new Error('the screenshot text was not stashed');
    const withTool = [
      { role: 'user', content: 'take a screenshot' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'screenshot', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: JSON.stringify({ success: true, imageBase64: variant(image.b64, 6000 + r) }) },
      { role: 'assistant', content: 'done' },
      { role: 'user', content: 'and now?' },
    ];
    t0 = performance.now();
    await ctx.compactContext(withTool, { stash: sanitizeStash, sanitizeToolResults: true });
    const compactFirst = performance.now() - t0;
    t0 = performance.now();
    const compacted = await ctx.compactContext(withTool, { stash: sanitizeStash, sanitizeToolResults: true });
    const compactAgain = performance.now() - t0;
    if (compacted.report.binariesStashed !== 1) throw new Error('the tool result was not sanitized');
    // The same message with the base64 itself as its content.
    const withBare = withTool.map((m) => (m.role === 'tool' ? { ...m, content: variant(image.b64, 7000 + r) } : m));
    await ctx.compactContext(withBare, { stash: sanitizeStash, sanitizeToolResults: true });
    t0 = performance.now();
    const bareCompacted = await ctx.compactContext(withBare, { stash: sanitizeStash, sanitizeToolResults: true });
    const compactBareAgain = performance.now() - t0;
    if (bareCompacted.report.binariesStashed !== 1) throw new Error('the bare tool result was not sanitized');
    if (r > 0) { firsts.push(first); agains.push(again); hashes.push(hash); textAgains.push(textAgain); compactFirsts.push(compactFirst); compactAgains.push(compactAgain); compactBareAgains.push(compactBareAgain); }
  }
  sanitizeStash.free();
  const sanitize = { first: median(firsts), again: median(agains), md5: median(hashes), textAgain: median(textAgains), compactFirst: median(compactFirsts), compactAgain: median(compactAgains), compactBareAgain: median(compactBareAgains) };
  result.node.sanitize = sanitize;
  console.log(`Node sanitizeToolResult, a 1 MB screenshot under imageBase64 (memory stash): first time ${sanitize.first.toFixed(2)} ms (node:crypto's MD5 of it ${sanitize.md5.toFixed(2)} ms, ${(sanitize.first / sanitize.md5).toFixed(2)}×), the same result again ${sanitize.again.toFixed(2)} ms`);
  console.log(`  the screenshot as the result's whole text, again ${sanitize.textAgain.toFixed(2)} ms; in JSON text in an OpenAI tool message, compactContext with sanitizeToolResults: the first time ${sanitize.compactFirst.toFixed(2)} ms, the history again ${sanitize.compactAgain.toFixed(2)} ms (the text's last outcome, its record confirmed); the base64 itself as its content, again ${sanitize.compactBareAgain.toFixed(2)} ms`);
}
}
if (!nodeOnly && !resentOnly) {
const nodeCrypto = await time(async () => nodeBaseline(new Map()));
// Each run compacts a history with new payloads (ctxpack remembers what it read).
const variantsOf = (base) => Array.from({ length: runs + 1 }, (_, k) => variantMessages(messages, base + k));
let variants = variantsOf(200);
let run = 0;
const nodeMemory = await time(async () => {
  const stash = await ctx.Stash.open({ backend: 'memory' });
  await ctx.compactContext(variants[run++], { stash });
  stash.free();
});
const dirs = [];
variants = variantsOf(300);
run = 0;
const nodeFile = await time(async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ctxpack-bench-'));
  dirs.push(dir);
  const stash = await ctx.Stash.open({ backend: fileStash(dir) });
  await ctx.compactContext(variants[run++], { stash });
  stash.close();
});
variants = null;
for (const d of dirs) rmSync(d, { recursive: true, force: true });
Object.assign(result.node, { nodeCrypto, nodeMemory, nodeFile });
console.log(`\nNode big: node:crypto + Map ${nodeCrypto.toFixed(1)} ms; ctxpack memory stash ${nodeMemory.toFixed(1)} ms (${(nodeMemory / nodeCrypto).toFixed(2)}× the baseline's time); file stash ${nodeFile.toFixed(1)} ms`);
}
// Node: agent loops (every group, or BENCH_ONLY=loops alone).
if (!process.env.BENCH_ONLY || process.env.BENCH_ONLY === 'loops') {
  result.node.loops = await (await import('../bench/loops.mjs')).benchLoops(ctx, { imageOfSize });
  if (process.env.BENCH_ONLY) done('loops');
}

// Node: ctxpack proxy against a server forwarding untouched, and the bytes it sends upstream.
if (!nodeFitOnly && !resentOnly && !markdownOnly && !cacheOnly && !offloadOnly && !redisOnly) result.node.proxy = await (await import('../bench/proxy.mjs')).benchProxy({ root, imageOfSize, runs });
if (proxyOnly) done('proxy');
// Node: the Redis stash with an empty store and with 20,000 other records.
if (!nodeFitOnly && !resentOnly && !markdownOnly && !cacheOnly && !offloadOnly) {
  const { benchRedis } = await import('../bench/redis.mjs');
  const { redisStash } = require(path.join(root, 'dist/adapters/redis.cjs'));
  result.node.redis = await benchRedis(ctx, { redisStash, makeImage, runs });
}
if (redisOnly) done('redis');

// Node: prompt-cache sessions, each slack against slack: false.
if (!nodeFitOnly && !resentOnly && !markdownOnly && !redisOnly && !offloadOnly) {
  const { benchCache } = await import('../bench/cache.mjs');
  const { makeScreenshot } = await import('../tests/fixtures/make.mjs');
  result.node.cache = await benchCache(ctx, { imageOfSize, makeScreenshot });
}
if (cacheOnly) done('cache');

// Node: a computer-use session with and without offload (bytes and upload counts).
if (!nodeFitOnly && !resentOnly && !markdownOnly && !redisOnly && !cacheOnly) {
  const { benchOffload } = await import('../bench/offload.mjs');
  result.node.offload = await benchOffload(ctx, { imageOfSize });
}
if (offloadOnly) done('offload');

// Node: markdown pathological inputs, ctxpack against commonmark.js.
if (!nodeFitOnly && !resentOnly) {
  const { benchMarkdown } = await import('../bench/markdown.mjs');
  result.node.markdown = await benchMarkdown(ctx, { commonmark: require.resolve('commonmark'), ...SIZES.markdown });
}
if (markdownOnly) done('markdown');

// Node fitting: the codec module against jimp and sharp, same image, same size.
if (!resentOnly) {
  const { benchNodeFit } = await import('../bench/node-fit.mjs');
  result.node.fit = await benchNodeFit(ctx, { photoRuns, photo: photo12mp, photoSize: PHOTO_SIZE, model: FIT_MODEL, time });
}

const wasm = readFileSync(path.join(root, 'dist/wasm/ctxpack_bg.wasm'));
const codec = readFileSync(path.join(root, 'dist/wasm/codec/ctxpack_codec_bg.wasm'));
result.size = { raw: wasm.length, gzip: gzipSync(wasm, { level: 9 }).length, codec: { raw: codec.length, gzip: gzipSync(codec, { level: 9 }).length } };
console.log(`\nrelease wasm: ${(result.size.raw / 1024).toFixed(1)} KiB, ${(result.size.gzip / 1024).toFixed(1)} KiB gzipped; codec module ${(result.size.codec.raw / 1024).toFixed(1)} KiB, ${(result.size.codec.gzip / 1024).toFixed(1)} KiB gzipped (loaded on first use)`);
writeFileSync(path.join(outDir, nodeFitOnly ? 'bench-node-fit.json' : resentOnly ? 'bench-resent.json' : 'bench.json'), JSON.stringify(result, null, 2) + '\n');
