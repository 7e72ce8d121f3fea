// Photos as phones write them and formats a model does not take, fitted on
// both pixel paths: the codec module in Node and the canvas in Chromium.
// A phone stores a portrait photo as landscape pixels with an EXIF
// orientation; whatever the path, the image sent is upright (pixels turned,
// no orientation left in the file), the same size on both paths, and
// matches libvips' own auto-orient + resize of the same file.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import ctxpack from 'ctxpack';
import { serve } from '../../scripts/serve.mjs';
import { launch } from './support/browser.mjs';
import { bmp as makeBmp } from '../fixtures/photos.mjs';

const { fitContext, Stash, getHistoryImage } = ctxpack;

/**
 * A 1600×1200 camera JPEG (quality 95, with grain) whose stored left
 * quarter is green above and red below, the rest blue — so that every turn
 * and flip moves colour across a large area —, stored with EXIF
 * `orientation`.
 */
async function turnedPhoto(orientation, width = 1600, height = 1200) {
  const raw = Buffer.alloc(width * height * 3);
  let s = 7;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      s = (s * 1664525 + 1013904223) >>> 0;
      const g = s >>> 28;
      const i = (y * width + x) * 3;
      const mark = x < width / 4 && y < height / 2;
      const red = x < width / 4;
      raw[i] = mark ? 20 : red ? 220 - g : 20 + g;
      raw[i + 1] = mark ? 220 - g : 20 + g;
      raw[i + 2] = mark ? 20 : red ? 20 : 220 - g;
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } }).withMetadata({ orientation }).jpeg({ quality: 95 }).toBuffer();
}

/** A checkerboard's colour at (x, y): what Windows tools still write as BMP. */
const checker = (x, y) => ((Math.floor(x / 20) + Math.floor(y / 20)) % 2 === 0 ? [250, 250, 250] : [10, 120, 10]);

/** The raw RGB of a `width`×`height` image whose pixels `colour(x, y)` gives. */
function rawRgb(width, height, colour) {
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) raw.set(colour(x, y), (y * width + x) * 3);
  return raw;
}

const turn = (mime, b64) => [
  { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: mime, data: b64 } }, { type: 'text', text: 'this one' }] },
  { role: 'assistant', content: 'noted' },
  { role: 'user', content: 'and now?' },
];

/** The raw RGB of `buf` (no orientation applied: what a model that ignores metadata sees). */
const rawOf = (buf) => sharp(buf).removeAlpha().raw().toBuffer({ resolveWithObject: true });

/** Mean absolute difference of two RGB buffers. */
function meanDiff(a, b) {
  assert.equal(a.length, b.length);
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i] - b[i]);
  return sum / a.length;
}

let server;
let browser;
let page;

before(async () => {
  server = await serve();
  browser = await launch();
  page = await browser.newPage();
  await page.goto(`${server.url}/tests/js/support/blank.html`);
  await page.evaluate(async () => {
    const mod = await import('/dist/web/index.js');
    await mod.default();
    window.ctxpack = mod;
  });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** Fits `messages` in the page (canvas path unless `codec`) and returns the report and the first image sent. */
function fitInPage(messages, model, { codec = false } = {}) {
  return page.evaluate(
    async ({ messages, model, codec }) => {
      const { fitContext, codecResize, Stash } = window.ctxpack;
      const stash = await Stash.open({ name: `photos-${crypto.randomUUID()}` });
      const { messages: out, report } = await fitContext(messages, { model, stash, ...(codec ? { resize: codecResize } : {}) });
      const sent = out[0].content[0];
      return { report, mime: sent.source?.media_type, data: sent.source?.data };
    },
    { messages, model, codec },
  );
}

for (const orientation of [1, 2, 3, 4, 5, 6, 7, 8]) {
  test(`orientation ${orientation}: Node and Chromium send the same upright image, as libvips shows it`, async () => {
    const photo = await turnedPhoto(orientation);
    const b64 = photo.toString('base64');
    const turned = orientation >= 5;
    const shown = turned ? [1200, 1600] : [1600, 1200];
    // GPT-4o reads the short side at 768.
    const want = turned ? [768, 1024] : [1024, 768];

    const stash = await Stash.open({ backend: 'memory' });
    const node = await fitContext(turn('image/jpeg', b64), { model: 'gpt-4o', stash });
    const fit = node.report.images[0];
    assert.deepEqual([fit.before.width, fit.before.height], shown, 'measured as shown');
    assert.equal(fit.before.orientation, orientation === 1 ? undefined : orientation);
    assert.equal(fit.action, 'downscaled');
    assert.deepEqual([fit.after.width, fit.after.height], want);
    assert.equal(fit.after.orientation, undefined);
    assert.deepEqual(fit.scale, { x: shown[0] / want[0], y: shown[1] / want[1] });
    const [original] = await getHistoryImage(stash, fit.id, { format: 'anthropic' });
    assert.equal(original.source.data, b64, 'the original, as stored, waits in the stash');

    const web = await fitInPage(turn('image/jpeg', b64), 'gpt-4o');
    assert.deepEqual(web.report.images[0].after.width, want[0]);
    assert.deepEqual(web.report.images[0].after.height, want[1]);

    // libvips' own reading of the same file: auto-orient, then resize.
    const reference = await sharp(photo).rotate().resize(want[0], want[1], { fit: 'fill' }).raw().toBuffer();
    for (const [path, data] of [['node', node.messages[0].content[0].source.data], ['chromium', web.data]]) {
      const buf = Buffer.from(data, 'base64');
      const meta = await sharp(buf).metadata();
      assert.deepEqual([meta.width, meta.height], want, `${path}: stored upright at the size reported`);
      assert.ok(meta.orientation === undefined || meta.orientation === 1, `${path}: no orientation left in the file`);
      const { data: pixels } = await rawOf(buf);
      const diff = meanDiff(pixels, reference);
      assert.ok(diff < 12, `${path}: differs from libvips' upright image by ${diff.toFixed(1)} per channel`);
    }
  });
}

test('a format the model does not take: BMP and AVIF become PNG and JPEG in Chromium; in Node BMP converts and AVIF fails with a code', async () => {
  const bmp = makeBmp(300, 200, checker);
  const avif = await sharp(await turnedPhoto(1, 800, 600)).avif({ quality: 60 }).toBuffer();

  const web = await fitInPage(turn('image/bmp', bmp.toString('base64')), 'claude-sonnet-4-5');
  assert.equal(web.report.images[0].action, 'reencoded');
  assert.deepEqual(web.report.images[0].reasons, ['unsupported-format']);
  assert.equal(web.mime, 'image/png');
  const { data: sent } = await rawOf(Buffer.from(web.data, 'base64'));
  const expected = rawRgb(300, 200, checker);
  assert.equal(meanDiff(sent, expected), 0, 'lossless: every pixel kept');

  const webAvif = await fitInPage(turn('image/avif', avif.toString('base64')), 'claude-sonnet-4-5');
  assert.equal(webAvif.report.images[0].action, 'reencoded');
  assert.equal(webAvif.mime, 'image/jpeg', 'a photo format becomes JPEG');
  assert.deepEqual([webAvif.report.images[0].after.width, webAvif.report.images[0].after.height], [800, 600]);
  assert.equal(webAvif.report.fits, true);

  const stash = await Stash.open({ backend: 'memory' });
  const nodeBmp = await fitContext(turn('image/bmp', bmp.toString('base64')), { model: 'claude-sonnet-4-5', stash });
  assert.equal(nodeBmp.report.images[0].action, 'reencoded');
  assert.equal(nodeBmp.messages[0].content[0].source.media_type, 'image/png');
  const { data: nodeSent } = await rawOf(Buffer.from(nodeBmp.messages[0].content[0].source.data, 'base64'));
  assert.equal(meanDiff(nodeSent, sent), 0, 'both paths send the same pixels');

  const input = turn('image/avif', avif.toString('base64'));
  const nodeAvif = await fitContext(input, { model: 'claude-sonnet-4-5', stash });
  const fit = nodeAvif.report.images[0];
  assert.equal(fit.action, 'failed');
  assert.match(fit.note, /^IMAGE_DECODE_FAILED/);
  assert.equal(nodeAvif.messages[0], input[0], 'left as it was: the caller’s own message');
  assert.equal(nodeAvif.report.fits, false);
  assert.match(nodeAvif.report.problems.join('\n'), /image\/avif, which the model does not take/);
});
