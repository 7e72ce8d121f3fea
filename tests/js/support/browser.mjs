// Launches Debian's Chromium headless through playwright-core, with the flags
// that keep it quiet on a machine without a network. An exception a page
// does not catch fails the test it happens in: the page's pending calls
// (`evaluate`, `goto`, …) reject with it, and every test of a file that
// imports this module ends with a check that no page threw since the last.
import { afterEach } from 'node:test';
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** Exceptions pages did not catch, not yet reported to a test. */
const unreported = [];

/** Per page, the rejections of its pending calls. */
const pending = new WeakMap();

/** The error a test fails with for `errors`, uncaught in a page. */
function pageError(errors) {
  const lines = errors.map((e) => e.stack || e.message || String(e));
  return new Error(`uncaught in the page:\n${lines.join('\n')}`);
}

/** Throws when a page threw an exception it did not catch since the last
 * check (each exception is reported once). */
export function assertNoPageErrors() {
  const errors = unreported.splice(0);
  if (errors.length) throw pageError(errors);
}

// Each test of a file that uses the browser ends with the check.
afterEach(assertNoPageErrors);

/** Records `page`'s uncaught exceptions, and rejects its pending calls with
 * each. */
function watch(page) {
  const rejects = new Set();
  pending.set(page, rejects);
  page.on('pageerror', (e) => {
    unreported.push(e);
    for (const reject of rejects) reject(pageError([e]));
    rejects.clear();
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
