// Launches Debian's Chromium headless through playwright-core, with the flags
// that keep it quiet on a machine without a network.
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** A persistent context with a fresh profile; `close()` removes the profile. */
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
  return {
    context,
    async newPage() {
      const page = await context.newPage();
      page.on('pageerror', (e) => console.error('[page error]', e.message));
      return page;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
