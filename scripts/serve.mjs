// A static file server on 127.0.0.1 for the demo (`npm start`), the benchmark
// and the page tests: serves only what their pages load, with the right MIME
// types, and lets a test add routes of its own.
import http from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** What is served from the repository, relative to it: a name ending in `/`
 * is a folder and everything under it, any other name one file. The demo page
 * and the build it imports; the benchmark page and the two MD5 libraries it
 * compares against; the blank page, the fixture and the README examples (as
 * written by tests/js/readme.test.mjs) that the browser tests load. Nothing
 * else: not the sources, not .git, not the rest of node_modules. */
export const PUBLIC = [
  'www/',
  'dist/',
  'bench/',
  'node_modules/spark-md5/spark-md5.min.js',
  'node_modules/hash-wasm/dist/md5.umd.min.js',
  'tests/js/support/blank.html',
  'tests/fixtures/chart.png',
  'test-results/readme/',
];

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.svg': 'image/svg+xml',
};

const isServed = (allow, rel) => allow === null || allow.some((p) => (p.endsWith('/') ? rel.startsWith(p) : rel === p));

/** The file a request path names, relative to the root, or an HTTP status
 * when it names none: 400 for a malformed path, 404 for one not served. */
export function resolvePath(pathname, allow = PUBLIC) {
  if (!pathname.startsWith('/')) return 400;
  // An encoded slash or backslash would hide a separator inside one segment.
  if (/%(2f|5c)/i.test(pathname)) return 400;
  let decoded;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return 400; // a malformed escape such as %E0%A4%A
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return 400;
  const segments = decoded.split('/').slice(1);
  if (segments.some((s) => s === '.' || s === '..')) return 400;
  // Hidden files and folders (.git, .env, …) are never served.
  if (segments.some((s) => s.startsWith('.'))) return 404;
  let rel = segments.filter((s) => s !== '').join('/');
  if (decoded.endsWith('/')) rel = rel ? `${rel}/index.html` : 'index.html';
  return isServed(allow, rel) ? rel : 404;
}

/** Starts a server (on `port`, or any free one); `routes` maps a path to
 * `(req, res) => void`. From the repository it serves only `PUBLIC` (and `/`
 * leads to the demo); from another `root`, such as a bundler's output folder,
 * everything under it unless `allow` is given. */
export async function serve({ root = ROOT, routes = {}, port = 0, allow = root === ROOT ? PUBLIC : null } = {}) {
  root = path.resolve(root);
  const notFound = (res) => res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');

  async function handle(req, res) {
    const target = req.url ?? '';
    const cut = target.search(/[?#]/);
    const pathname = cut === -1 ? target : target.slice(0, cut);
    const query = cut === -1 ? '' : target.slice(cut).replace(/#.*/, '');
    const route = routes[pathname];
    if (route) return route(req, res);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (pathname === '/' && root === ROOT && allow === PUBLIC) {
      res.writeHead(302, { location: `/www/${query}` }).end();
      return;
    }
    const rel = resolvePath(pathname, allow);
    if (typeof rel === 'number') {
      if (rel === 404 && typeof resolvePath(`${pathname}/`, allow) === 'string') {
        // A served folder named without its slash (`/www`): where its page is.
        const info = await stat(path.join(root, decodeURIComponent(pathname))).catch(() => null);
        if (info?.isDirectory()) {
          res.writeHead(301, { location: `${pathname}/${query}` }).end();
          return;
        }
      }
      if (rel === 404) notFound(res);
      else res.writeHead(rel, { 'content-type': 'text/plain' }).end(http.STATUS_CODES[rel]);
      return;
    }
    const file = path.join(root, rel);
    // Belt and braces: whatever resolvePath let through stays under the root.
    const inside = path.relative(root, file);
    if (inside.startsWith('..') || path.isAbsolute(inside)) {
      res.writeHead(403).end();
      return;
    }
    let body;
    try {
      body = await readFile(file);
    } catch (e) {
      if (e.code === 'EISDIR' && !pathname.endsWith('/')) {
        res.writeHead(301, { location: `${pathname}/${query}` }).end();
        return;
      }
      notFound(res);
      return;
    }
    res.writeHead(200, {
      'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
      'content-length': body.length,
      'cache-control': 'no-store',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((e) => {
      console.error('[serve]', e);
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const bound = server.address().port;
  return { url: `http://127.0.0.1:${bound}`, close: () => new Promise((r) => { server.close(r); server.closeAllConnections?.(); }) };
}
