// What the page tests' Chromium (support/browser.mjs) counts as a failure of
// the test it happens in: an exception a page or its worker did not catch, a
// worker that failed to load, and a console error in a page or a worker —
// but for Chromium's own request for a favicon the servers do not have, and
// those the test says it expects.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { assertNoPageErrors, expectConsoleErrors, launch } from './support/browser.mjs';

const FILES = {
  '/': ['text/html', '<!doctype html><title>t</title><p>ok</p>'],
  '/throws.js': ['text/javascript', "setTimeout(() => { throw new Error('thrown in the worker'); }, 50);"],
  '/logs.js': ['text/javascript', "console.error('logged in the worker');"],
  '/imports-missing.js': ['text/javascript', "import './missing.js';"],
};

let server;
let base;
let browser;
let page;

before(async () => {
  server = http.createServer((req, res) => {
    const file = FILES[req.url];
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': file[0] }).end(file[1]);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${server.address().port}`;
  browser = await launch();
  page = await browser.newPage();
});

after(async () => {
  await browser?.close();
  server?.close();
});

/**
 * The page's next event `name` for which `predicate` holds (listened to
 * directly: the page's pending calls reject on an uncaught exception).
 */
function next(name, predicate = () => true) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${name} event`)), 10_000);
    const on = (event) => {
      if (!predicate(event)) return;
      clearTimeout(timer);
      page.off(name, on);
      resolve(event);
    };
    page.on(name, on);
  });
}

/** Runs `fn`, then waits for the page's console error whose text holds `text`. */
async function consoleError(text, fn) {
  const seen = next('console', (m) => m.type() === 'error' && m.text().includes(text));
  await fn();
  await seen;
}

test('a page that only loads, its favicon missing, passes', async () => {
  // Chromium asks for /favicon.ico by itself: a console error that is allowed.
  await consoleError('Failed to load resource', () => page.goto(`${base}/`));
  assertNoPageErrors();
});

test('a console error in a page fails the test', async () => {
  await consoleError('logged in the page', () => page.evaluate(() => console.error('logged in the page')));
  assert.throws(assertNoPageErrors, /console\.error in .*logged in the page/);
});

test('a console error in a worker fails the test', async () => {
  await consoleError('logged in the worker', () => page.evaluate(() => void new Worker('/logs.js')));
  assert.throws(assertNoPageErrors, /console\.error in the worker .*\/logs\.js: logged in the worker/);
});

test('an exception a worker does not catch fails the test', async () => {
  // Reported twice: as the page's uncaught exception, and by the worker's error event.
  const thrown = next('pageerror');
  await consoleError('thrown in the worker', () => page.evaluate(() => void new Worker('/throws.js')));
  await thrown;
  assert.throws(assertNoPageErrors, /thrown in the worker[^]*worker \/throws\.js failed: Uncaught Error: thrown in the worker|worker \/throws\.js failed[^]*thrown in the worker/);
});

test('a worker whose script is missing, or whose module import fails, fails the test', async () => {
  await consoleError('/missing-worker.js failed', () => page.evaluate(() => void new Worker('/missing-worker.js')));
  assert.throws(assertNoPageErrors, /worker \/missing-worker\.js failed: it did not load/);
  await consoleError('/imports-missing.js failed', () => page.evaluate(() => void new Worker('/imports-missing.js', { type: 'module' })));
  assert.throws(assertNoPageErrors, /worker \/imports-missing\.js failed/);
});

test('a fetch the server answers 404 is a console error too: not allowed', async () => {
  await consoleError('Failed to load resource', () => page.evaluate(() => fetch('/not-here.png').then((r) => r.status)));
  assert.throws(assertNoPageErrors, /not-here\.png: Failed to load resource/);
});

test('a console error the test expects passes, for that test only', async () => {
  expectConsoleErrors(/\/expected\.png: Failed to load resource: the server responded with a status of 404 /);
  await consoleError('Failed to load resource', () => page.evaluate(() => fetch('/expected.png').then((r) => r.status)));
  assertNoPageErrors();
});

test('an expectation ends with its test', async () => {
  await consoleError('Failed to load resource', () => page.evaluate(() => fetch('/expected.png').then((r) => r.status)));
  assert.throws(assertNoPageErrors, /expected\.png: Failed to load resource/);
});
