// The demo page driven as a person would, in headless Chromium: three
// messages with images (a markdown link, a dropped file, a pasted data URL),
// the payload panel, a reload, and the model's tool call. Screenshots go to
// test-results/.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { serve, ROOT } from '../../scripts/serve.mjs';
import { launch } from './support/browser.mjs';
import { makeImage } from '../fixtures/make.mjs';

const md5 = (s) => createHash('md5').update(s).digest('hex');
const shots = path.join(ROOT, 'test-results');
let server;
let browser;
let page;

before(async () => {
  mkdirSync(shots, { recursive: true });
  server = await serve();
  browser = await launch();
  page = await browser.newPage();
  await page.goto(`${server.url}/www/?db=demo-${Math.random().toString(36).slice(2)}`);
  await page.waitForSelector('body[data-ready="true"]');
});

after(async () => {
  await browser?.close();
  await server?.close();
});

const chart = readFileSync(path.join(ROOT, 'www/sample/chart.png')).toString('base64');
let jpeg;
let third;

async function sendAndWait(count) {
  await page.click('#send');
  await page.waitForFunction((n) => document.querySelectorAll('#conversation li').length === n && document.getElementById('status').textContent === 'sent', count);
}

test('three messages with images: older two become placeholders, the newest stays whole', async () => {
  // 1: the markdown image the page starts with.
  assert.match(await page.inputValue('#composer'), /!\[图表\]\(sample\/chart\.png\)/);
  await sendAndWait(2);

  // 2: a dropped JPEG.
  jpeg = (await makeImage('jpeg', 160, 120, 71)).toString('base64');
  await page.evaluate(async (b64) => {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const dt = new DataTransfer();
    dt.items.add(new File([bytes], 'photo.jpg', { type: 'image/jpeg' }));
    document.getElementById('dropzone').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, jpeg);
  await page.waitForFunction(() => document.getElementById('composer').value.includes('attachment:1'));
  await page.type('#composer', ' 右上角是什么？');
  await sendAndWait(4);

  // 3: markdown with an inline data URL.
  third = (await makeImage('png', 90, 60, 72)).toString('base64');
  await page.fill('#composer', `这张新图呢？![third](data:image/png;base64,${third})`);
  await sendAndWait(6);

  const shown = await page.textContent('#payload');
  assert.ok(shown.includes(`[Picture:history_${md5(chart)}]`), 'first image is a placeholder');
  assert.ok(shown.includes(`[Picture:history_${md5(jpeg)}]`), `second image is a placeholder: ${shown.slice(0, 1500)}`);
  assert.ok(!shown.includes(md5(third)), 'the newest image is not');
  assert.ok(shown.includes(third.slice(0, 24)), 'the newest image is inline');
  assert.equal(shown.match(/inline\)/g)?.length, 1);
  const newest = await page.evaluate(() => window.ctxDemo.payload.at(-2).content.find((p) => p.type === 'image_url').image_url.url);
  assert.equal(newest, `data:image/png;base64,${third}`, 'the full newest image is in the request');
  assert.ok(Number((await page.textContent('#images-after')).trim()) === 1);
  await page.screenshot({ path: path.join(shots, 'demo.png'), fullPage: true });
});

test('after a reload the stash still holds the images and the conversation comes back', async () => {
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  await page.waitForFunction(() => document.querySelectorAll('#stash-list li').length === 3);
  const ids = await page.$$eval('#stash-list li', (els) => els.map((e) => e.dataset.id));
  assert.deepEqual(ids.sort(), [md5(chart), md5(jpeg), md5(third)].sort());
  const srcs = await page.$$eval('#conversation img', (els) => els.map((e) => e.src));
  assert.deepEqual(srcs, [`data:image/png;base64,${chart}`, `data:image/jpeg;base64,${jpeg}`, `data:image/png;base64,${third}`]);
});

test('playing get_history_image returns the original bytes', async () => {
  await page.selectOption('#tool-id', md5(jpeg));
  await page.click('#play-tool');
  await page.waitForSelector('#tool-image');
  const src = await page.getAttribute('#tool-image', 'src');
  const bytes = Buffer.from(src.slice(src.indexOf(',') + 1), 'base64');
  assert.ok(bytes.equals(Buffer.from(jpeg, 'base64')));
  assert.match(await page.textContent('#tool-result pre'), /get_history_image\(\{"image_md5":"history_[0-9a-f]{32}"\}\)/);
  await page.screenshot({ path: path.join(shots, 'demo-tool.png'), fullPage: true });
});

test('the API selector shows the request and the tool answer in that API\'s shape', async () => {
  const shapes = {
    anthropic: { label: 'Anthropic Messages', payload: '"media_type"', answer: '"tool_result"' },
    gemini: { label: 'Google Gemini', payload: '"inlineData"', answer: '"functionResponse"' },
    'openai-responses': { label: 'OpenAI Responses', payload: '"input_text"', answer: '"function_call_output"' },
    'ai-sdk': { label: 'Vercel AI SDK', payload: '"mediaType"', answer: '"tool-result"' },
    langchain: { label: 'LangChain JS', payload: '"mimeType"', answer: '"tool_call_id"' },
    openai: { label: 'OpenAI Chat Completions', payload: '"image_url"', answer: '"tool_call_id"' },
  };
  for (const [api, want] of Object.entries(shapes)) {
    await page.selectOption('#provider', api);
    await page.waitForFunction((w) => document.querySelector('#payload').textContent.includes(w), want.payload);
    const payload = await page.evaluate(() => window.ctxDemo.payload);
    assert.ok(JSON.stringify(payload).includes(`[Picture:history_${md5(chart)}]`), `${api}: the oldest image is a placeholder`);
    await page.selectOption('#tool-id', md5(jpeg));
    await page.click('#play-tool');
    await page.waitForFunction((label) => document.querySelector('#tool-answer')?.textContent.startsWith(label), want.label);
    const answer = await page.textContent('#tool-answer');
    assert.ok(answer.includes(want.answer), `${api}: ${answer.slice(0, 300)}`);
  }
});

test('a dropped 4000×3000 photo: the model selector shows what is sent, and a simulated refusal shows the repair', async () => {
  const photo = (await makeImage('jpeg', 4000, 3000, 77)).toString('base64');
  await page.evaluate(async (b64) => {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const dt = new DataTransfer();
    dt.items.add(new File([bytes], 'camera.jpg', { type: 'image/jpeg' }));
    document.getElementById('dropzone').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, photo);
  await page.waitForFunction(() => /attachment:\d/.test(document.getElementById('composer').value));
  const count = await page.evaluate(() => document.querySelectorAll('#conversation li').length);
  await sendAndWait(count + 2);
  await page.selectOption('#model', 'claude-sonnet-4-5');
  await page.waitForFunction(() => [...document.querySelectorAll('#fit-table tbody tr')].some((tr) => tr.textContent.includes('4000×3000')));
  const fit = await page.evaluate(() => window.ctxDemo.fit.report);
  const row = fit.images.find((i) => i.before?.width === 4000);
  assert.equal(row.action, 'downscaled');
  assert.ok(row.after.width <= 1568 && row.after.bytes < row.before.bytes);
  assert.equal(row.after.tokens, Math.ceil((row.after.width * row.after.height) / 750));
  assert.match(await page.textContent('#fit-summary'), /claude-sonnet-4-5: .* fits/);
  // Another model, other figures.
  await page.selectOption('#model', 'gpt-4o');
  await page.waitForFunction(() => window.ctxDemo.fit.report.model === 'gpt-4o');
  const gpt = (await page.evaluate(() => window.ctxDemo.fit.report)).images.find((i) => i.before?.width === 4000);
  assert.deepEqual([gpt.after.width, gpt.after.height], [1024, 768]);
  // The refusal: dimensions over 1000 px.
  await page.selectOption('#refusal', { index: 0 });
  await page.click('#refuse');
  await page.waitForSelector('#repair-summary');
  assert.match(await page.textContent('#repair-summary'), /read as image-dimensions \(limit 1000\).*within it/);
  const sizes = await page.$$eval('#repair-table tr', (rows) => rows.map((r) => r.children[2].textContent));
  assert.ok(sizes.every((t) => !/^\d+×/.test(t) || Number(t.split('×')[0]) <= 1000), sizes.join(' | '));
  await page.screenshot({ path: path.join(shots, 'demo-fit.png'), fullPage: true });
});

test('the page fits a narrow window', async () => {
  await page.setViewportSize({ width: 420, height: 800 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `horizontal overflow of ${overflow}px`);
  await page.screenshot({ path: path.join(shots, 'demo-narrow.png'), fullPage: false });
  await page.setViewportSize({ width: 1280, height: 800 });
});
