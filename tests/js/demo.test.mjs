// The demo page driven as a person would, in headless Chromium: three
// messages with images (a markdown link, a dropped file, a pasted data URL),
// the payload panel, a reload, the model's tool call, images that cannot be
// read, and the full-size samples fitted to a model. Screenshots go to
// test-results/.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { serve, ROOT } from '../../scripts/serve.mjs';
import { expectConsoleErrors, launch } from './support/browser.mjs';
import { makeImage } from '../fixtures/make.mjs';
import { ensureDemoSamples, SAMPLES } from '../../scripts/demo-samples.mjs';

const md5 = (s) => createHash('md5').update(s).digest('hex');
const shots = path.join(ROOT, 'test-results');
let server;
let browser;
let page;

before(async () => {
  mkdirSync(shots, { recursive: true });
  await ensureDemoSamples();
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
  await page.waitForFunction((n) => document.querySelectorAll('#conversation > li').length === n && document.getElementById('status').textContent === 'sent', count);
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
    'gemini-interactions': { label: 'Gemini Interactions API', payload: '"user_input"', answer: '"function_result"' },
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
  const count = await page.evaluate(() => document.querySelectorAll('#conversation > li').length);
  await sendAndWait(count + 2);
  // The default model: the newest Sonnet, reading 28-px patches up to 2576 px and 4,784 tokens.
  assert.equal(await page.inputValue('#model'), 'claude-sonnet-5-5');
  await page.selectOption('#model', 'claude-sonnet-5-5');
  await page.waitForFunction(() => [...document.querySelectorAll('#fit-table tbody tr')].some((tr) => tr.textContent.includes('4000×3000')));
  const fit = await page.evaluate(() => window.ctxDemo.fit.report);
  const row = fit.images.find((i) => i.before?.width === 4000);
  assert.equal(row.action, 'downscaled');
  assert.ok(row.after.width <= 2576 && row.after.width > 1568 && row.after.bytes < row.before.bytes, JSON.stringify(row.after));
  assert.equal(row.after.tokens, Math.ceil(row.after.width / 28) * Math.ceil(row.after.height / 28));
  assert.ok(row.after.tokens <= 4784);
  assert.match(await page.textContent('#fit-summary'), /claude-sonnet-5-5: .* fits/);
  // Another model, other figures: 32-px patches, at most 2,500.
  await page.selectOption('#model', 'gpt-6.2-sol');
  await page.waitForFunction(() => window.ctxDemo.fit.report.model === 'gpt-6.2'); // its row
  const gpt = (await page.evaluate(() => window.ctxDemo.fit.report)).images.find((i) => i.before?.width === 4000);
  assert.equal(gpt.action, 'downscaled');
  assert.ok(Math.ceil(gpt.after.width / 32) * Math.ceil(gpt.after.height / 32) <= 2500 && gpt.after.width > 1700, JSON.stringify(gpt.after));
  // The refusal: dimensions over 1000 px.
  await page.selectOption('#refusal', { index: 0 });
  await page.click('#refuse');
  await page.waitForSelector('#repair-summary');
  assert.match(await page.textContent('#repair-summary'), /read as image-dimensions \(limit 1000\).*within it/);
  const sizes = await page.$$eval('#repair-table tr', (rows) => rows.map((r) => r.children[2].textContent));
  assert.ok(sizes.every((t) => !/^\d+×/.test(t) || Number(t.split('×')[0]) <= 1000), sizes.join(' | '));
  await page.screenshot({ path: path.join(shots, 'demo-fit.png'), fullPage: true });
});

test('an image that cannot be read gets a notice under its message, and the rest is sent', async () => {
  const count = await page.evaluate(() => document.querySelectorAll('#conversation > li').length);
  // A path the server does not have (404, through the page's resolver) and
  // an address nothing answers (the global fetch fails): Chromium writes a
  // console error for each.
  const gone = '![gone](sample/no-such-image.png)';
  const offline = '![offline](http://127.0.0.1:9/chart.png)';
  expectConsoleErrors(/\/sample\/no-such-image\.png: Failed to load resource: the server responded with a status of 404 /, /^http:\/\/127\.0\.0\.1:9\/chart\.png: Failed to load resource: net::ERR_/);
  await page.fill('#composer', `这两张呢？${gone} ${offline} 还有 ![图表](sample/chart.png)`);
  await page.click('#send');
  await page.waitForFunction((n) => document.querySelectorAll('#conversation > li').length === n, count + 2);
  const user = page.locator('#conversation > li.user').last();
  const notice = user.locator('.notice[role="alert"]');
  await notice.waitFor();
  assert.match(await notice.locator('strong').textContent(), /^2 images could not be read; sent as text/);
  const items = await notice.locator('li').evaluateAll((lis) => lis.map((li) => ({ code: li.dataset.code, md: li.querySelector('code').textContent, text: li.textContent })));
  assert.deepEqual(items.map((i) => [i.code, i.md]), [['UNRESOLVED', gone], ['UNRESOLVED', offline]]);
  assert.ok(items.every((i) => i.text.length > i.md.length + ' — UNRESOLVED: '.length), JSON.stringify(items));
  // The images that were read are sent; those that were not stay as their markdown.
  const sent = await page.evaluate(() => window.ctxDemo.conversation.at(-2).content);
  assert.deepEqual(sent.filter((p) => p.type === 'image_url').map((p) => p.image_url.url), [`data:image/png;base64,${chart}`]);
  const text = sent.filter((p) => p.type === 'text').map((p) => p.text).join('');
  assert.ok(text.includes(gone) && text.includes(offline), text);
  // The status line comes last, once the conversation is saved and the stash
  // drawn again: wait for it rather than read it while it still says sending.
  await page.waitForFunction(() => document.getElementById('status').textContent !== 'sending…');
  assert.match(await page.textContent('#status'), /2 images could not be read/);
  // A message whose images were all read has no notice.
  assert.equal(await page.locator('#conversation > li.user').first().locator('.notice').count(), 0);
  await user.screenshot({ path: path.join(shots, 'demo-unread.png') });
});

test('the phone photo and screenshot samples are fitted to a model at the size it reads, the photo upright', async () => {
  const count = await page.evaluate(() => document.querySelectorAll('#conversation > li').length);
  await page.fill('#composer', '');
  await page.click('#sample-photo');
  await page.click('#sample-screenshot');
  assert.match(await page.inputValue('#composer'), /^!\[phone photo\]\(sample\/phone-photo\.jpg\) !\[screenshot\]\(sample\/screenshot\.png\)$/);
  await sendAndWait(count + 2);
  const { width, height, orientation } = SAMPLES.photo;
  const isPhoto = (i) => i.before?.orientation === orientation;
  await page.selectOption('#model', 'claude-sonnet-5-5');
  await page.waitForFunction(() => window.ctxDemo.fit.report.model === 'claude-sonnet-5-5');
  const claude = await page.evaluate(() => window.ctxDemo.fit.report);
  const photo = claude.images.find(isPhoto);
  // Measured as shown: a portrait, its stored sides swapped.
  assert.deepEqual([photo.before.width, photo.before.height], [height, width]);
  assert.equal(photo.action, 'downscaled');
  assert.ok(photo.reasons.includes('exif-orientation'), photo.reasons.join(' '));
  assert.ok(photo.after.height <= 2576 && photo.after.width < photo.after.height, JSON.stringify(photo.after));
  assert.ok(photo.after.bytes < photo.before.bytes, JSON.stringify(photo));
  assert.equal(photo.after.tokens, Math.ceil(photo.after.width / 28) * Math.ceil(photo.after.height / 28));
  const shot = claude.images.find((i) => i.before?.width === SAMPLES.screenshot.width);
  assert.equal(shot.before.height, SAMPLES.screenshot.height);
  assert.equal(shot.action, 'downscaled', shot.note);
  assert.ok(shot.after.width < shot.before.width && shot.after.bytes < shot.before.bytes, JSON.stringify(shot));
  const rows = await page.$$eval('#fit-table tbody tr', (trs) => trs.map((tr) => [tr.dataset.action, tr.children[1].textContent]));
  assert.ok(rows.some(([action, before]) => action === 'downscaled' && before.startsWith(`${height}×${width}`)), JSON.stringify(rows));
  // GPT-6.2 Sol reads it within 2,500 patches of 32 px.
  await page.selectOption('#model', 'gpt-6.2-sol');
  await page.waitForFunction(() => window.ctxDemo.fit.report.model === 'gpt-6.2'); // its row
  const gpt = (await page.evaluate(() => window.ctxDemo.fit.report)).images.find(isPhoto);
  assert.equal(gpt.action, 'downscaled');
  assert.ok(gpt.after.width < gpt.after.height && Math.ceil(gpt.after.width / 32) * Math.ceil(gpt.after.height / 32) <= 2500, JSON.stringify(gpt.after));
  await page.screenshot({ path: path.join(shots, 'demo-samples.png'), fullPage: true });
});

test('the page fits a narrow window', async () => {
  await page.setViewportSize({ width: 420, height: 800 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `horizontal overflow of ${overflow}px`);
  await page.screenshot({ path: path.join(shots, 'demo-narrow.png'), fullPage: false });
  await page.setViewportSize({ width: 1280, height: 800 });
});
