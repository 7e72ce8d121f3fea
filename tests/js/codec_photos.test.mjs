// The codec module on real photos' quirks, through the Node entry's
// codecResize (what fitContext calls): EXIF orientations come out upright,
// CMYK, ICC-tagged, 16-bit, palette, grey+alpha, progressive, animated
// images decode to the right colours, BMP and TIFF convert, AVIF and HEIC
// fail with a coded error, hostile files fail with one without harming
// the next call, and a trap costs only the instance it happened in.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import path from 'node:path';
import sharp from 'sharp';
import { Jimp } from 'jimp';
import ctxpack from 'ctxpack';
import { ROOT } from '../../scripts/serve.mjs';
import { makeImage, makeAnimatedGif } from '../fixtures/make.mjs';
import {
  MARKS, orientedImage, cmykJpeg, displayP3Jpeg, png16, palettePngWithTrns, greyAlphaPng, animatedWebp,
  lossyWebp, tiff, avif, heicHead, bmp, pngClaiming, jpegClaiming, gifClaiming, webpClaiming,
} from '../fixtures/photos.mjs';

const { codecResize } = ctxpack;
const require = createRequire(import.meta.url);
const CODEC = path.join(ROOT, 'dist/node/codec/ctxpack_codec.js');

const resize = (bytes, width, height, mime = 'image/png', quality = 90) =>
  codecResize({ data: new Uint8Array(bytes) }, { width, height, mime, quality });

/** The RGBA of pixel (x, y) of an encoded image, and its metadata. */
async function pixelsOf(bytes) {
  const meta = await sharp(Buffer.from(bytes)).metadata();
  const { data, info } = await sharp(Buffer.from(bytes)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (x, y) => [...data.subarray((y * info.width + x) * 4, (y * info.width + x) * 4 + 4)];
  return { meta, width: info.width, height: info.height, at };
}

const near = (actual, expected, tolerance, what) =>
  assert.ok(expected.every((c, i) => Math.abs(actual[i] - c) <= tolerance), `${what}: ${actual} is not near ${expected}`);

/** Asserts the marked image is upright: red top-left, green top-right, blue bottom-left. */
async function assertUpright(bytes, width, height, what) {
  const img = await pixelsOf(bytes);
  assert.equal(img.width, width, `${what}: width`);
  assert.equal(img.height, height, `${what}: height`);
  assert.equal(img.meta.orientation, undefined, `${what}: the output carries no orientation`);
  const [x0, x1, y0, y1] = [Math.floor(width / 8), Math.floor((7 * width) / 8), Math.floor(height / 8), Math.floor((7 * height) / 8)];
  near(img.at(x0, y0), MARKS.topLeft, 40, `${what}: top-left`);
  near(img.at(x1, y0), MARKS.topRight, 40, `${what}: top-right`);
  near(img.at(x0, y1), MARKS.bottomLeft, 40, `${what}: bottom-left`);
  near(img.at(x1, y1), MARKS.rest, 40, `${what}: bottom-right`);
}

test('a JPEG stored 1600×1200 comes out upright at the shown size for each of the eight EXIF orientations', async () => {
  for (let orientation = 1; orientation <= 8; orientation++) {
    const swapped = orientation >= 5;
    const [sw, sh] = swapped ? [1200, 1600] : [1600, 1200];
    const jpeg = await orientedImage(orientation, sw, sh, 'jpeg');
    const stored = await sharp(jpeg).metadata();
    assert.equal(stored.orientation, orientation);
    assert.deepEqual([stored.width, stored.height], [1600, 1200], 'stored 1600×1200 whatever its orientation');
    const [tw, th] = swapped ? [600, 800] : [800, 600];
    for (const mime of ['image/jpeg', 'image/png']) {
      const out = await resize(jpeg, tw, th, mime);
      assert.deepEqual([out.width, out.height, out.mime], [tw, th, mime]);
      assert.deepEqual([out.sourceWidth, out.sourceHeight, out.orientation], [sw, sh, orientation], 'the source as shown, and the orientation applied');
      await assertUpright(out.data, tw, th, `orientation ${orientation} → ${mime}`);
    }
  }
});

test('PNG (eXIf) orientations are applied too; WebP is shown as stored, as browsers show it', async () => {
  for (const orientation of [6, 8]) {
    const bytes = await orientedImage(orientation, 300, 400, 'webp');
    assert.equal((await sharp(bytes).metadata()).orientation, orientation, `webp carries orientation ${orientation}`);
    // Shown 300×400 by a viewer that applies EXIF; stored (and shown by
    // browsers) 400×300.
    const out = await resize(bytes, 200, 150);
    assert.equal(out.orientation, 1, 'no orientation applied to a WebP');
    assert.deepEqual([out.sourceWidth, out.sourceHeight], [400, 300]);
  }
  for (const format of ['png']) {
    for (const orientation of [3, 6, 7, 8]) {
      const swapped = orientation >= 5;
      const [sw, sh] = swapped ? [300, 400] : [400, 300];
      const bytes = await orientedImage(orientation, sw, sh, format);
      assert.equal((await sharp(bytes).metadata()).orientation, orientation, `${format} carries orientation ${orientation}`);
      const [tw, th] = swapped ? [150, 200] : [200, 150];
      const out = await resize(bytes, tw, th);
      await assertUpright(out.data, tw, th, `${format} orientation ${orientation}`);
    }
  }
});

test('a CMYK JPEG (Adobe, inverted) decodes to its colours, not their inverse', async () => {
  const red = await cmykJpeg(64, 48, [220, 30, 30]);
  assert.equal((await sharp(red).metadata()).space, 'cmyk');
  const out = await pixelsOf((await resize(red, 32, 24)).data);
  const [r, g, b] = out.at(16, 12);
  assert.ok(r > 170 && g < 90 && b < 90, `red stays red: ${[r, g, b]}`);
});

test('a Display P3 photo is converted to sRGB', async () => {
  const srgb = [200, 60, 60];
  const file = await displayP3Jpeg(64, 48, srgb);
  assert.match((await sharp(file).metadata()).icc.subarray(0, 200).toString('latin1'), /mntrRGB/, 'the fixture carries an RGB ICC profile');
  // jimp decodes without colour management: the P3 values as stored.
  const stored = (await Jimp.read(file)).bitmap.data;
  assert.ok(Math.abs(stored[0] - srgb[0]) > 10, `the stored P3 values differ from the sRGB ones (${[...stored.subarray(0, 3)]})`);
  const out = await pixelsOf((await resize(file, 32, 24)).data);
  near(out.at(16, 12), [...srgb, 255], 4, 'sRGB');
  assert.equal(out.meta.icc, undefined, 'the output carries no profile');
});

test('16-bit, palette with tRNS and grey+alpha PNGs keep their colours and transparency', async () => {
  const deep = await png16(40, 30, [200, 100, 50]);
  assert.equal((await sharp(deep).metadata()).depth, 'ushort');
  near((await pixelsOf((await resize(deep, 20, 15)).data)).at(10, 7), [200, 100, 50, 255], 2, '16-bit PNG');

  const palette = await palettePngWithTrns(40, 30, [30, 90, 200]);
  const pm = await sharp(palette).metadata();
  assert.ok(pm.paletteBitDepth || pm.isPalette, 'a palette PNG');
  const pout = await pixelsOf((await resize(palette, 40, 30)).data);
  near(pout.at(5, 15), [30, 90, 200, 255], 2, 'palette: opaque half');
  assert.equal(pout.at(35, 15)[3], 0, 'palette: the tRNS half stays transparent');

  const greyAlpha = await greyAlphaPng(40, 30, 90);
  assert.equal((await sharp(greyAlpha).metadata()).channels, 2);
  const gout = await pixelsOf((await resize(greyAlpha, 40, 30)).data);
  near(gout.at(5, 15), [90, 90, 90, 255], 2, 'grey+alpha: opaque half');
  assert.equal(gout.at(35, 15)[3], 0, 'grey+alpha: transparent half');
});

test('progressive JPEG, lossy WebP and an animated WebP (its first frame) decode', async () => {
  const progressive = await makeImage('jpeg-progressive', 400, 300, 5);
  const expected = await sharp(progressive).resize(200, 150).raw().toBuffer();
  const { data } = await resize(progressive, 200, 150);
  const got = await sharp(Buffer.from(data)).raw().toBuffer();
  const mad = got.reduce((s, v, i) => s + Math.abs(v - expected[i]), 0) / got.length;
  assert.ok(mad < 12, `progressive JPEG: mean difference from libvips ${mad.toFixed(1)}`);

  near((await pixelsOf((await resize(await lossyWebp(40, 30, [60, 160, 220]), 20, 15)).data)).at(10, 7), [60, 160, 220, 255], 10, 'lossy WebP');

  const animated = await animatedWebp(40, 30, [[220, 40, 40], [40, 40, 220]]);
  assert.equal((await sharp(animated).metadata()).pages, 2);
  near((await pixelsOf((await resize(animated, 20, 15)).data)).at(10, 7), [220, 40, 40, 255], 16, 'animated WebP: the first frame');
});

test('BMP and TIFF convert to PNG and JPEG', async () => {
  const fromBmp = await resize(bmp(33, 21, [10, 120, 240]), 22, 14, 'image/png');
  assert.equal(fromBmp.mime, 'image/png');
  near((await pixelsOf(fromBmp.data)).at(11, 7), [10, 120, 240, 255], 1, 'BMP');
  for (const compression of ['lzw', 'deflate', 'none']) {
    const fromTiff = await resize(await tiff(50, 40, [240, 200, 20], compression), 25, 20, 'image/jpeg');
    assert.equal((await sharp(Buffer.from(fromTiff.data)).metadata()).format, 'jpeg');
    near((await pixelsOf(fromTiff.data)).at(12, 10), [240, 200, 20, 255], 8, `TIFF (${compression})`);
  }
  // JPEG-compressed YCbCr TIFF is beyond the TIFF decoder: a coded error.
  await assert.rejects(resize(await tiff(50, 40, [240, 200, 20], 'jpeg'), 25, 20), (e) => e.code === 'IMAGE_DECODE_FAILED' && /TIFF|Tiff/.test(e.message));
});

test('AVIF and HEIC fail with IMAGE_DECODE_FAILED naming the format', async () => {
  await assert.rejects(resize(await avif(40, 30, [1, 2, 3]), 20, 15), (e) => e.code === 'IMAGE_DECODE_FAILED' && /AVIF/.test(e.message));
  await assert.rejects(resize(heicHead(), 20, 15), (e) => e.code === 'IMAGE_DECODE_FAILED' && /HEIC/.test(e.message));
});

/** Hostile inputs: headers that lie about their size, truncations, noise;
 * each with what its error says.
 * Every one must fail, none decode. A header over the codec's limits is
 * refused before any pixel is allocated. A header that claims more pixels
 * than its data holds, and a truncated file, fail where the data runs out:
 * the codec's output takes the place of the image the model sees, and a
 * partial decode would send pixels the picture never had (a blank band
 * below the cut) as if it were whole, where a failure leaves the original
 * sent as it was, with a note saying why. No format: nothing to decode. */
async function hostileInputs() {
  const png = await makeImage('png', 64, 48);
  const jpeg = await makeImage('jpeg', 64, 48);
  const gif = await makeAnimatedGif(32, 24, 2);
  const webp = await makeImage('webp', 64, 48);
  const cut = (b) => b.subarray(0, Math.floor(b.length / 2));
  const tooLarge = (side) => new RegExp(`${side}×${side} px is larger than the codec decodes`);
  const overLimit = /the image is larger than the codec decodes/;
  const noFormat = /format could not be determined/;
  return [
    ['PNG claiming 16384×16384', pngClaiming(png, 16384, 16384), tooLarge(16384)],
    ['PNG claiming 100000×100000', pngClaiming(png, 100000, 100000), overLimit],
    ['PNG claiming 8000×8000 with 64×48 of data', pngClaiming(png, 8000, 8000), /Png: .*not have enough data/],
    ['JPEG claiming 65000×65000', jpegClaiming(jpeg, 65000, 65000), tooLarge(65000)],
    ['JPEG claiming 8000×8000 with 64×48 of data', jpegClaiming(jpeg, 8000, 8000), /JPEG: invalid JPEG format/],
    ['GIF claiming 65535×65535', gifClaiming(gif, 65535, 65535), overLimit],
    ['WebP claiming 16384×16384', webpClaiming(webp, 16384, 16384), tooLarge(16384)],
    ['truncated PNG', cut(png), /unexpected end of file/],
    ['truncated JPEG', cut(jpeg), /JPEG: failed to fill whole buffer/],
    ['truncated GIF', cut(gif), /Gif: Unexpected End of File/],
    ['truncated WebP', cut(webp), /WebP: Corrupt bitstream/],
    ['truncated TIFF', cut(await tiff(64, 48, [9, 9, 9])), /failed to fill whole buffer/],
    ['truncated BMP', cut(bmp(64, 48, [9, 9, 9])), /failed to fill whole buffer/],
    ['empty', Buffer.alloc(0), noFormat],
    ['noise', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 251)), noFormat],
  ];
}

test('hostile images each fail with IMAGE_DECODE_FAILED saying why, and the next call still works', async () => {
  const good = await makeImage('jpeg', 320, 240, 3);
  for (const [what, bytes, reason] of await hostileInputs()) {
    const outcome = await resize(bytes, 64, 48).then((out) => ({ out }), (error) => ({ error }));
    assert.ok(outcome.error, `${what}: decoded to ${outcome.out?.width}×${outcome.out?.height}, where it must fail`);
    assert.ok(!(outcome.error instanceof WebAssembly.RuntimeError), `${what}: ${outcome.error}`);
    assert.equal(outcome.error.code, 'IMAGE_DECODE_FAILED', `${what}: ${outcome.error.message}`);
    assert.match(outcome.error.message, /^cannot decode the image: /, what);
    assert.match(outcome.error.message, reason, what);
    const next = await resize(good, 160, 120, 'image/jpeg');
    assert.deepEqual([next.width, next.height], [160, 120], `after ${what}`);
  }
});

test('the bomb is refused from its header, naming the limit', async () => {
  const png = await makeImage('png', 64, 48);
  await assert.rejects(resize(pngClaiming(png, 16384, 16384), 64, 48), (e) => e.code === 'IMAGE_DECODE_FAILED' && /16384×16384.*larger than the codec decodes/.test(e.message));
});

test('a trap leaves what the call held allocated: an instance that trapped is not one to reuse', () => {
  // A module instance of its own, outside the entry's.
  const file = require.resolve(CODEC);
  const cached = require.cache[file];
  delete require.cache[file];
  const instance = require(file);
  if (cached) require.cache[file] = cached;
  else delete require.cache[file];
  for (let i = 0; i < 4; i++) assert.throws(() => instance.__trapForTests(128), WebAssembly.RuntimeError);
  // Freed, the four 128 MiB would have shared one region.
  const bytes = instance.__memoryBytesForTests();
  assert.ok(bytes >= 4 * 128 * 1048576, `memory ${bytes}`);
});

test('after a trap in codecResize the entry loads a fresh instance and the next call succeeds', async () => {
  const good = await makeImage('jpeg', 320, 240, 4);
  await resize(good, 32, 24);
  const poisoned = require(CODEC);
  assert.equal(typeof poisoned.__trapForTests, 'function');
  // Make the loaded instance trap on its next call, holding 1 GiB, as an
  // allocation failure deep in a decoder would.
  poisoned.transcodeImage = () => poisoned.__trapForTests(1024);
  await assert.rejects(resize(good, 32, 24), WebAssembly.RuntimeError);
  for (let i = 0; i < 5; i++) {
    const out = await resize(good, 160, 120, 'image/jpeg');
    assert.deepEqual([out.width, out.height], [160, 120]);
  }
  assert.notEqual(require(CODEC), poisoned, 'a fresh instance of the codec');
});
