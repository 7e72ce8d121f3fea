// The demo server (scripts/serve.mjs) serves what the demo, the benchmark and
// the page tests load, and nothing else of the repository: not .git, not the
// sources, whatever the path looks like. Requests go out raw (node:http keeps
// `..` and escapes as written; fetch would normalize them away).
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serve, resolvePath, ROOT } from '../../scripts/serve.mjs';

let server;
before(async () => {
  server = await serve();
});
after(() => server?.close());

/** One raw request: `{status, headers, body}`. */
function get(base, target, method = 'GET') {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname, port, path: target, method, agent: false }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** What a page loads by relative or root path: `src`/`href` attributes and
 * static `import … from '…'`, resolved against the page's own URL path. */
function referenced(pagePath) {
  const text = readFileSync(path.join(ROOT, pagePath.replace(/\/$/, '/index.html')), 'utf8');
  const refs = [
    ...[...text.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]),
    ...[...text.matchAll(/\bfrom\s+'([^']+)'/g)].map((m) => m[1]),
  ].filter((r) => !/^[a-z]+:/i.test(r));
  return refs.map((r) => new URL(r, `http://x/${pagePath}`).pathname);
}

test('the demo page and everything it loads answer 200', async () => {
  const demo = ['/www/', '/www/index.html', ...referenced('www/'), ...referenced('www/app.js'), '/www/sample/chart.png'];
  assert.ok(demo.includes('/dist/web/index.js'), `the demo imports the web build: ${demo}`);
  assert.ok(demo.includes('/www/style.css') && demo.includes('/www/favicon.svg'), demo.join(' '));
  for (const p of [...new Set(demo), '/dist/wasm/ctxpack_bg.wasm']) {
    const r = await get(server.url, p);
    assert.equal(r.status, 200, p);
  }
  const wasm = await get(server.url, '/dist/wasm/ctxpack_bg.wasm');
  assert.equal(wasm.headers['content-type'], 'application/wasm');
  assert.equal((await get(server.url, '/www/?db=demo-x')).status, 200);
  assert.match((await get(server.url, '/www/app.js')).headers['content-type'], /^text\/javascript/);
});

test('the bench page and the test pages load what they need', async () => {
  const bench = ['/bench/index.html', ...referenced('bench/index.html'), ...referenced('bench/page.js')];
  assert.ok(bench.includes('/node_modules/spark-md5/spark-md5.min.js'), bench.join(' '));
  const tests = ['/tests/js/support/blank.html', '/tests/fixtures/chart.png'];
  for (const p of new Set([...bench, ...tests])) assert.equal((await get(server.url, p)).status, 200, p);
});

test('/ leads to the demo; a folder without its slash gets it', async () => {
  const root = await get(server.url, '/');
  assert.equal(root.status, 302);
  assert.equal(root.headers.location, '/www/');
  const www = await get(server.url, '/www?db=a');
  assert.equal(www.status, 301);
  assert.equal(www.headers.location, '/www/?db=a');
});

test('the rest of the repository is not served', async () => {
  for (const p of [
    '/.git/config', '/.git/HEAD', '/.gitignore', '/package.json', '/package-lock.json', '/Cargo.toml', '/Cargo.lock',
    '/src/lib.rs', '/core/Cargo.toml', '/scripts/serve.mjs', '/scripts/setup.sh', '/tests/js/serve.test.mjs',
    '/tests/fixtures/make.mjs', '/node_modules/binaryen/package.json', '/node_modules/spark-md5/package.json',
    '/README.md', '/LICENSE', '/target/', '/www-evil/', '/dist2/ctxpack.js', '/www.js', '/distx',
    '/www/.hidden', '/dist/.gitignore', '/www/sample/../../package.json',
  ]) {
    const r = await get(server.url, p);
    assert.ok([400, 403, 404].includes(r.status), `${p}: ${r.status}`);
  }
});

test('traversal, encoded separators and dots, and malformed escapes are refused', async () => {
  const secret = readFileSync(path.join(ROOT, 'Cargo.toml'), 'utf8').slice(0, 40);
  for (const p of [
    '/www/../Cargo.toml', '/dist/../../etc/passwd', '/..', '/../Cargo.toml', '/www/./../Cargo.toml',
    '/www/%2e%2e/Cargo.toml', '/www/%2E%2E/Cargo.toml', '/%2e%2e/%2e%2e/etc/passwd', '/www/.%2e/Cargo.toml',
    '/www%2f..%2fCargo.toml', '/www/..%2fCargo.toml', '/www/..%2FCargo.toml', '/dist/..%5cCargo.toml',
    '/www%2fapp.js', '/www/%2e%2e%2fCargo.toml', '/www/%252e%252e/Cargo.toml', '//Cargo.toml', '//etc/passwd',
    '/www/%00', '/www/app.js%00.png', '/www/..\\Cargo.toml',
  ]) {
    const r = await get(server.url, p);
    assert.ok([400, 403, 404].includes(r.status), `${p}: ${r.status}`);
    assert.ok(!r.body.toString().includes(secret), p);
  }
  for (const p of ['/www/%2e%2e/Cargo.toml', '/www%2f..%2fCargo.toml', '/%2e%2e/x', '/www/../Cargo.toml']) {
    assert.equal((await get(server.url, p)).status, 400, p);
  }
});

test('a malformed escape gets 400 and the server keeps answering', async () => {
  for (const p of ['/%E0%A4%A', '/www/%E0%A4%A', '/www/%', '/%zz', '/dist/web/%C0%AF']) {
    assert.equal((await get(server.url, p)).status, 400, p);
  }
  assert.equal((await get(server.url, '/www/')).status, 200);
});

test('only GET and HEAD; HEAD sends no body', async () => {
  assert.equal((await get(server.url, '/www/', 'POST')).status, 405);
  const head = await get(server.url, '/www/app.js', 'HEAD');
  assert.equal(head.status, 200);
  assert.equal(head.body.length, 0);
  assert.ok(Number(head.headers['content-length']) > 0);
});

test('a sibling folder whose name starts like a served one is not served', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ctxpack-serve-'));
  try {
    for (const d of ['www', 'www-evil', 'dist', 'dist2']) {
      mkdirSync(path.join(dir, d));
      writeFileSync(path.join(dir, d, 'file.txt'), d);
    }
    writeFileSync(path.join(dir, 'secret.txt'), 'secret');
    const own = await serve({ root: dir, allow: ['www/', 'dist/'] });
    try {
      assert.equal((await get(own.url, '/www/file.txt')).body.toString(), 'www');
      assert.equal((await get(own.url, '/dist/file.txt')).body.toString(), 'dist');
      for (const p of ['/www-evil/file.txt', '/dist2/file.txt', '/secret.txt', '/www/../secret.txt', '/www/%2e%2e/secret.txt', '/www%2f..%2fsecret.txt', '/www/..%2fwww-evil/file.txt']) {
        const r = await get(own.url, p);
        assert.ok([400, 403, 404].includes(r.status), `${p}: ${r.status}`);
      }
    } finally {
      await own.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('resolvePath names a file under a served folder or a status', () => {
  assert.equal(resolvePath('/www/'), 'www/index.html');
  assert.equal(resolvePath('/www//app.js'), 'www/app.js');
  assert.equal(resolvePath('/dist/web/index.js'), 'dist/web/index.js');
  assert.equal(resolvePath('/www-evil/x'), 404);
  assert.equal(resolvePath('/www/%E0%A4%A'), 400);
  assert.equal(resolvePath('/www/%2e%2e/x'), 400);
  assert.equal(resolvePath('/.git/config'), 404);
  assert.equal(resolvePath('/anything', null), 'anything');
  assert.equal(resolvePath('/../x', null), 400);
});
