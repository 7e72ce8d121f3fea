// Every code example in the README, in CONTRIBUTING.md and in the files under
// docs/ runs. ```js blocks run in Node (CommonJS when they `require`); ```js
// browser in a page; ```js worker in a module worker; ```js bundler bundled by
// webpack and run in a page; ```js vscode is a file of the example VS Code
// extension, word for word. Every relative link between those files points
// at a file and a heading that exist.
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import webpack from 'webpack';
import { serve, ROOT } from '../../scripts/serve.mjs';
import { launch } from './support/browser.mjs';
import { freePort, startRedis } from './support/redis.mjs';
import { startCluster } from './support/redis_cluster.mjs';

const DOCS = ['README.md', 'CONTRIBUTING.md', ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const text = Object.fromEntries(DOCS.map((file) => [file, readFileSync(path.join(ROOT, file), 'utf8')]));
// Each block is named by its file and its place there: `docs/models.md example 2`.
const blocks = DOCS.flatMap((file) => [...text[file].matchAll(/```js( \w+)?\n([\s\S]*?)```/g)].map((m, i) => ({
  name: `${file} example ${i + 1}`,
  id: `${file.replace(/\.md$/, '').replace(/[^\w]+/g, '-')}-${i + 1}`,
  file,
  kind: (m[1] ?? ' node').trim(),
  code: m[2],
})));
const dir = path.join(ROOT, 'test-results', 'readme');
mkdirSync(dir, { recursive: true });
const of = (kind) => blocks.filter((b) => b.kind === kind);
const forWeb = (code) => code.replaceAll("'ctxpack/web'", "'/dist/web/index.js'");

let browser;
let server;
const tmp = [];
/**
 * The app's own upload endpoint, as the README's browser example posts to
 * it: it would call the provider's Files API with the key it holds; here it
 * names each file by a hash of its bytes.
 */
function filesRoute(req, res) {
  if (req.method !== 'POST') return res.writeHead(405).end();
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const id = `file_${createHash('sha256').update(Buffer.concat(chunks)).digest('hex').slice(0, 24)}`;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id, expiresAt: Date.now() + 30 * 86400 * 1000 }));
  });
}

async function page() {
  server ??= await serve({ routes: { '/api/files': filesRoute } });
  browser ??= await launch();
  const p = await browser.newPage();
  await p.goto(`${server.url}/tests/js/support/blank.html`);
  return p;
}
after(async () => {
  await browser?.close();
  await server?.close();
  for (const d of tmp) rmSync(d, { recursive: true, force: true });
});

test('the README has an example for every host', () => {
  for (const kind of ['node', 'browser', 'worker', 'bundler', 'vscode']) assert.ok(of(kind).some((b) => b.file === 'README.md'), kind);
  assert.deepEqual([...new Set(blocks.map((b) => b.kind))].sort(), ['browser', 'bundler', 'node', 'vscode', 'worker']);
});

/** A fenced code block, from its opening line to its closing one. */
const FENCE = /^```[^\n]*\n[\s\S]*?^```$/gm;

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped,
 * spaces as hyphens, a repeated anchor numbered. */
function anchors(markdown) {
  const seen = new Map();
  const out = new Set();
  for (const [, heading] of markdown.replace(FENCE, '').matchAll(/^#{1,6} (.+)$/gm)) {
    const base = heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\p{M} _-]/gu, '').replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

test('every relative link of the README, CONTRIBUTING.md and docs/ points at a file and a heading that exist', () => {
  const bad = [];
  for (const file of DOCS) {
    const prose = text[file].replace(FENCE, '').replace(/(`+)[^`\n][\s\S]*?\1/g, '');
    for (const [, target] of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue;
      const [rel, anchor] = target.split('#');
      const to = rel ? path.posix.normalize(path.posix.join(path.posix.dirname(file), rel)) : file;
      if (!existsSync(path.join(ROOT, to))) bad.push(`${file}: ${target} (no ${to})`);
      else if (anchor && to.endsWith('.md') && !anchors(readFileSync(path.join(ROOT, to), 'utf8')).has(anchor)) bad.push(`${file}: ${target} (no heading #${anchor} in ${to})`);
    }
  }
  assert.deepEqual(bad, []);
});

test('no README example checks an error inside a catch, where a call that does not throw would pass unchecked', () => {
  for (const block of blocks) {
    for (const m of block.code.matchAll(/\bcatch\b[^{;\n]*\{/g)) {
      // The body of the catch, up to its closing brace.
      let depth = 1;
      let i = m.index + m[0].length;
      for (; i < block.code.length && depth > 0; i++) depth += { '{': 1, '}': -1 }[block.code[i]] ?? 0;
      const body = block.code.slice(m.index + m[0].length, i - 1);
      assert.doesNotMatch(body, /\bassert\b/, `${block.name}: use assert.throws or assert.rejects`);
    }
  }
});

for (const block of of('node')) {
  test(`${block.name} runs in Node`, async () => {
    const cjs = /\brequire\(/.test(block.code);
    const file = path.join(dir, `example-${block.id}.${cjs ? 'cjs' : 'mjs'}`);
    writeFileSync(file, block.code);
    // An example of the Redis stash gets a redis-server of its own.
    const env = { ...process.env };
    let redis;
    let cluster;
    if (block.code.includes('REDIS_CLUSTER_NODES')) {
      // One on a Redis Cluster gets a 3-node cluster of its own.
      cluster = await startCluster();
      env.REDIS_CLUSTER_NODES = cluster.ports.map((p) => `127.0.0.1:${p}`).join(',');
    } else if (block.code.includes('ctxpack/redis')) {
      const port = await freePort();
      const data = mkdtempSync(path.join(os.tmpdir(), 'ctxpack-readme-redis-'));
      tmp.push(data);
      redis = await startRedis(port, data);
      env.REDIS_URL = `redis://127.0.0.1:${port}`;
    }
    try {
      const r = spawnSync(process.execPath, [file], { cwd: ROOT, encoding: 'utf8', env });
      assert.equal(r.status, 0, r.stderr + r.stdout);
    } finally {
      redis?.kill();
      await cluster?.stop();
    }
  });
}

for (const block of of('browser')) {
  test(`${block.name} runs in a page`, async () => {
    writeFileSync(path.join(dir, `example-${block.id}.mjs`), forWeb(block.code));
    const p = await page();
    const error = await p.evaluate(async (src) => {
      try {
        await import(src);
        return null;
      } catch (e) {
        return String(e?.stack ?? e);
      }
    }, `/test-results/readme/example-${block.id}.mjs`);
    assert.equal(error, null);
  });
}

for (const block of of('worker')) {
  test(`${block.name} runs in a module worker`, async () => {
    writeFileSync(path.join(dir, `example-${block.id}.mjs`), forWeb(block.code));
    const p = await page();
    const out = await p.evaluate(async (src) => {
      const png = new Uint8Array(await (await fetch('/tests/fixtures/chart.png')).arrayBuffer());
      const url = `data:image/png;base64,${btoa(String.fromCharCode(...png))}`;
      const worker = new Worker(src, { type: 'module' });
      const next = () => new Promise((resolve, reject) => { worker.onmessage = (e) => resolve(e.data); worker.onerror = (e) => reject(new Error(e.message)); });
      if ((await next()) !== 'ready') throw new Error('no ready');
      const reply = next();
      worker.postMessage([{ role: 'user', content: [{ type: 'image_url', image_url: { url } }] }, { role: 'user', content: 'next' }]);
      const data = await reply;
      worker.terminate();
      return { stashed: data.stashed, first: data.messages[0].content[0].text };
    }, `/test-results/readme/example-${block.id}.mjs`);
    assert.equal(out.stashed, 1);
    assert.match(out.first, /^\[Picture:history_[0-9a-f]{32}\]$/);
  });
}

for (const block of of('bundler')) {
  test(`${block.name} builds with webpack and runs`, async () => {
    const app = mkdtempSync(path.join(os.tmpdir(), 'ctxpack-readme-'));
    tmp.push(app);
    mkdirSync(path.join(app, 'node_modules'));
    symlinkSync(ROOT, path.join(app, 'node_modules/ctxpack'), 'dir');
    writeFileSync(path.join(app, 'entry.js'), block.code);
    const stats = await new Promise((resolve, reject) =>
      webpack({
        mode: 'production', context: app, entry: './entry.js',
        output: { path: path.join(app, 'out'), filename: 'main.js', module: true, chunkFormat: 'module' },
        experiments: { asyncWebAssembly: true, outputModule: true, topLevelAwait: true },
        performance: { hints: false },
      }, (err, s) => (err ? reject(err) : resolve(s))),
    );
    assert.ok(!stats.hasErrors(), stats.toString('errors-only'));
    writeFileSync(path.join(app, 'out/index.html'), '<!doctype html><meta charset="utf-8"><script type="module" src="./main.js"></script>');
    const own = await serve({ root: path.join(app, 'out') });
    browser ??= await launch();
    const p = await browser.newPage();
    try {
      await p.goto(`${own.url}/index.html`);
      await p.waitForFunction(() => window.bundledDone === true, null, { timeout: 20000 });
    } finally {
      await p.close();
      await own.close();
    }
  });
}

// The VS Code examples are the example extension's entries, word for word:
// tests/js/vscode_hosts.test.mjs runs that extension inside VS Code's own
// extension hosts.
const EXTENSION = path.join(ROOT, 'examples/vscode-extension/src');
for (const block of of('vscode')) {
  test(`${block.name} is a file of the example VS Code extension`, () => {
    const files = readdirSync(EXTENSION).map((f) => path.join(EXTENSION, f));
    assert.ok(files.some((f) => readFileSync(f, 'utf8') === block.code), `${block.name} is none of ${files.map((f) => path.relative(ROOT, f)).join(', ')}, word for word`);
  });
}
