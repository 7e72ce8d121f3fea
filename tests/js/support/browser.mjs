// Launches Debian's Chromium headless through playwright-core, with the flags
// that keep it quiet on a machine without a network. An exception a page
// or one of its workers does not catch fails the test it happens in: the
// page's pending calls (`evaluate`, `goto`, …) reject with it, and every test
// of a file that imports this module ends with a check that no page threw
// since the last. So do a worker that fails (its script not found, a module
// import that fails) and a `console.error` in a page or a worker (but for
// the allowed ones below).
import { afterEach } from 'node:test';
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** Exceptions pages did not catch, not yet reported to a test. */
const unreported = [];

/**
 * The console errors any test may meet: Chromium asks every page's server
 * for `/favicon.ico` of its own accord, and the tests' servers have none.
 * Any other console error fails the test, unless the test expects it
 * ({@link expectConsoleErrors}).
 */
const ALLOWED_CONSOLE_ERRORS = [
  (line) => /^https?:\/\/[^/]+\/favicon\.ico: Failed to load resource: /.test(line),
];

/** The console errors the running test expects (see {@link expectConsoleErrors}). */
const expected = [];

/**
 * Declares that the running test makes the page write console errors
 * matching `patterns`, each matched against `<url>: <text>` (the URL the
 * console names, or the worker's): Chromium writes one for every resource
 * it fails to load, so a test of a page meeting an image it cannot fetch
 * expects them. The declaration ends with the test.
 */
export function expectConsoleErrors(...patterns) {
  expected.push(...patterns);
}

/**
 * Run in every page before its own scripts: each Worker it starts reports an
 * `error` event (a script that failed to load or to link, an exception the
 * worker did not catch) as a console error, which the page's watch records.
 */
function reportWorkerErrors() {
  const Native = globalThis.Worker;
  if (!Native) return;
  globalThis.Worker = new Proxy(Native, {
    construct(target, args, newTarget) {
      const worker = Reflect.construct(target, args, newTarget);
      worker.addEventListener('error', (e) => console.error(`worker ${String(args[0])} failed: ${e.message || 'it did not load'}`));
      return worker;
    },
  });
}

/** Per page, the rejections of its pending calls. */
const pending = new WeakMap();

/** The error a test fails with for `errors`, uncaught in a page. */
function pageError(errors) {
  const lines = errors.map((e) => e.stack || e.message || String(e));
  return new Error(`uncaught in the page, or written to its console as an error:\n${lines.join('\n')}`);
}

/** Throws when a page threw an exception it did not catch, or wrote a
 * console error, since the last check (each is reported once). */
export function assertNoPageErrors() {
  const errors = unreported.splice(0);
  if (errors.length) throw pageError(errors);
}

// Each test of a file that uses the browser ends with the check, and with
// the console errors it expected.
afterEach(() => {
  try {
    assertNoPageErrors();
  } finally {
    expected.length = 0;
  }
});

/** Records `page`'s uncaught exceptions (its workers' among them), and
 * rejects its pending calls with each; records its and its workers'
 * console errors that are not allowed. */
function watch(page) {
  const rejects = new Set();
  pending.set(page, rejects);
  page.on('pageerror', (e) => {
    unreported.push(e);
    for (const reject of rejects) reject(pageError([e]));
    rejects.clear();
  });
  page.on('console', (msg) => {
    if (msg.type() !== 'error') return;
    const where = msg.worker() ? `the worker ${msg.worker().url()}` : msg.location().url || 'the page';
    const line = `${where}: ${msg.text()}`;
    if (ALLOWED_CONSOLE_ERRORS.some((allowed) => allowed(line)) || expected.some((p) => p.test(line))) return;
    unreported.push(new Error(`console.error in ${line}`));
  });
}

/** `page`, its calls that return promises rejected by an uncaught exception
 * in it while they are pending. */
function rejectingOnPageError(page) {
  return new Proxy(page, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      return (...args) => {
        const out = value.apply(target, args);
        if (typeof out?.then !== 'function') return out;
        const rejects = pending.get(target);
        let reject;
        const thrown = new Promise((_, r) => { reject = r; });
        rejects.add(reject);
        return Promise.race([out, thrown]).finally(() => rejects.delete(reject));
      };
    },
  });
}

/** A persistent context with a fresh profile; `close()` removes the profile
 * and throws if a page threw since the last check. */
export async function launch() {
  const profile = mkdtempSync(path.join(os.tmpdir(), 'ctxpack-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
      '--no-first-run',
    ],
  });
  await context.addInitScript(reportWorkerErrors);
  // Every page of the context, those the pages open among them.
  for (const page of context.pages()) watch(page);
  context.on('page', watch);
  return {
    context,
    async newPage() {
      const page = await context.newPage();
      if (!pending.has(page)) watch(page);
      return rejectingOnPageError(page);
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
      assertNoPageErrors();
    },
  };
}
