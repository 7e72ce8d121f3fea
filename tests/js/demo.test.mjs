// The demo page driven as a person would: load it, drop an image file on the
// composer, and read the parts panel. Saves a screenshot to test-results/.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { serve, ROOT } from '../../scripts/serve.mjs';
import { launch } from './support/browser.mjs';
import { makeImage } from '../fixtures/make.mjs';

let server;
let browser;
let page;

before(async () => {
  server = await serve();
  browser = await launch();
  page = await browser.newPage();
  await page.goto(`${server.url}/www/`);
  await page.waitForSelector('body[data-ready="true"]');
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('the sample markdown image is resolved into an image part', async () => {
  const tags = await page.$$eval('#parts li .tag', (els) => els.map((e) => e.textContent));
  assert.deepEqual(tags, ['text', 'image_url', 'text']);
  assert.match(await page.textContent('#status'), /3 parts · 0 missing/);
});

test('a dropped JPEG becomes a data URL image part, in every format', async () => {
  const jpeg = (await makeImage('jpeg', 120, 90, 11)).toString('base64');
  await page.fill('#composer', 'before ');
  await page.evaluate(async (b64) => {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const dt = new DataTransfer();
    dt.items.add(new File([bytes], 'photo.jpg', { type: 'image/jpeg' }));
    const ta = document.getElementById('composer');
    ta.setSelectionRange(ta.value.length, ta.value.length);
    document.getElementById('dropzone').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, jpeg);
  await page.waitForFunction(() => document.getElementById('composer').value.includes('data:image/jpeg;base64,'));
  await page.waitForFunction(() => document.querySelectorAll('#parts li img').length === 1);
  const src = await page.getAttribute('#parts li img', 'src');
  assert.equal(src, `data:image/jpeg;base64,${jpeg}`);
  for (const [format, tag] of [['anthropic', 'image'], ['ai-sdk', 'image'], ['openai', 'image_url']]) {
    await page.selectOption('#format', format);
    await page.waitForFunction((t) => [...document.querySelectorAll('#parts li .tag')].some((e) => e.textContent === t), tag);
    assert.equal(await page.getAttribute('#parts li img', 'src'), `data:image/jpeg;base64,${jpeg}`);
  }
  const dir = path.join(ROOT, 'test-results');
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, 'demo.png'), fullPage: true });
});
