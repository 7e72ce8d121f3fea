// The demo page's full-size samples, made on first use rather than kept in
// git (they are megabytes): a phone photo as a phone stores it and a laptop
// screenshot, the two images "Fit to a model" has real work on. Both are
// drawn from arithmetic alone, so every machine makes the same pictures.
//
//   www/sample/phone-photo.jpg  4032×3024 pixels with EXIF orientation 6:
//                               a 3024×4032 portrait as shown
//   www/sample/screenshot.png   2880×1800, a page of text with a photo in it
//
//   node scripts/demo-samples.mjs            makes them when missing or stale
//   import { ensureDemoSamples } from …      the same, from `npm start` and the demo test
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { makeScreenshot } from '../tests/fixtures/make.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sampleDir = path.join(root, 'www/sample');

/** The samples: file name under `www/sample/`, how it is made, and its size as stored. */
export const SAMPLES = {
  photo: { file: 'phone-photo.jpg', width: 4032, height: 3024, orientation: 6 },
  screenshot: { file: 'screenshot.png', width: 2880, height: 1800 },
};

/** Where the key of the samples on disk is kept (hidden: never served). */
const keyFile = path.join(sampleDir, '.samples-key');

/** What the samples are made from: this script, the screenshot's drawing
 * and the encoder's versions. Samples made under another key are made again. */
function samplesKey() {
  return createHash('sha256')
    .update(readFileSync(fileURLToPath(import.meta.url)))
    .update(readFileSync(fileURLToPath(new URL('../tests/fixtures/make.mjs', import.meta.url))))
    .update(`\0${JSON.stringify(sharp.versions)}`)
    .digest('hex');
}

/**
 * Raw RGB of a landscape at dusk, `width`×`height` (portrait as shown): a
 * sky gradient, a sun, two ranges of hills and a lake, with a fine grain so
 * that it compresses like a photo rather than like a drawing.
 */
export function dusk(width, height) {
  const buf = Buffer.alloc(width * height * 3);
  const sun = { x: width * 0.62, y: height * 0.38, r: width * 0.09 };
  const horizon = height * 0.58;
  const lake = height * 0.8;
  let seed = 0x2f6fde;
  for (let y = 0; y < height; y++) {
    const far = horizon - height * (0.06 + 0.03 * Math.sin(y * 0.0007));
    for (let x = 0; x < width; x++) {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      const grain = ((seed >>> 24) % 9) - 4;
      const ridgeFar = far + height * 0.025 * Math.sin(x / (width * 0.07)) + height * 0.012 * Math.sin(x / (width * 0.021));
      const ridgeNear = horizon + height * 0.03 * Math.sin(x / (width * 0.11) + 1.3) + height * 0.01 * Math.sin(x / (width * 0.031));
      let r;
      let g;
      let b;
      if (y >= lake) {
        const t = (y - lake) / (height - lake);
        r = 40 + 60 * (1 - t) + 10 * Math.sin(x * 0.05 + y * 0.2);
        g = 60 + 50 * (1 - t);
        b = 110 + 40 * (1 - t);
      } else if (y >= ridgeNear) {
        const t = (y - ridgeNear) / (lake - ridgeNear);
        r = 34 + 30 * t;
        g = 70 + 40 * t + 12 * Math.sin(x * 0.013);
        b = 40 + 10 * t;
      } else if (y >= ridgeFar) {
        r = 70;
        g = 80;
        b = 120;
      } else {
        const t = y / far;
        r = 60 + 190 * t;
        g = 90 + 90 * t;
        b = 190 - 60 * t;
        const d = Math.hypot(x - sun.x, y - sun.y);
        if (d < sun.r) {
          r = 255;
          g = 236;
          b = 170;
        } else if (d < sun.r * 3) {
          const glow = 1 - (d - sun.r) / (sun.r * 2);
          r += (255 - r) * glow * 0.6;
          g += (220 - g) * glow * 0.5;
        }
      }
      const i = (y * width + x) * 3;
      buf[i] = Math.max(0, Math.min(255, r + grain));
      buf[i + 1] = Math.max(0, Math.min(255, g + grain));
      buf[i + 2] = Math.max(0, Math.min(255, b + grain));
    }
  }
  return buf;
}

/** The phone photo: the portrait as shown, stored turned a quarter left with
 * EXIF orientation 6 ("turn right to show"), as a phone held upright writes it. */
export async function phonePhoto() {
  const { width, height, orientation } = SAMPLES.photo;
  // Shown, the sides swap: `height` wide, `width` tall.
  const shown = dusk(height, width);
  const stored = await sharp(shown, { raw: { width: height, height: width, channels: 3 } }).rotate(270).raw().toBuffer();
  return sharp(stored, { raw: { width, height, channels: 3 } })
    .withMetadata({ orientation })
    .jpeg({ quality: 85 })
    .toBuffer();
}

/** The screenshot: a page of text lines under a title bar, with a photo in
 * it, as a laptop's screen at twice its point size shows an article. */
export async function screenshot() {
  const { width, height } = SAMPLES.screenshot;
  const photo = { width: 1200, height: 800, left: width - 1200 - 120, top: 160 };
  const picture = await sharp(dusk(photo.width, photo.height), { raw: { width: photo.width, height: photo.height, channels: 3 } }).png().toBuffer();
  return sharp(await makeScreenshot(width, height, 3))
    .composite([{ input: picture, left: photo.left, top: photo.top }])
    .png({ compressionLevel: 6 })
    .toBuffer();
}

/** Writes the samples into `www/sample/` unless those there were made by
 * this very script and encoder. Returns the paths of the samples. */
export async function ensureDemoSamples() {
  const key = samplesKey();
  const paths = Object.fromEntries(Object.entries(SAMPLES).map(([name, s]) => [name, path.join(sampleDir, s.file)]));
  const current = existsSync(keyFile) && readFileSync(keyFile, 'utf8') === key && Object.values(paths).every((p) => existsSync(p));
  if (current) return paths;
  await mkdir(sampleDir, { recursive: true });
  // Each file appears whole or not at all: a server may be serving the folder.
  const place = async (file, bytes) => {
    await writeFile(`${file}.${process.pid}.tmp`, bytes);
    await rename(`${file}.${process.pid}.tmp`, file);
  };
  await place(paths.photo, await phonePhoto());
  await place(paths.screenshot, await screenshot());
  await place(keyFile, key);
  return paths;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const paths = await ensureDemoSamples();
  console.log(`demo samples: ${Object.values(paths).map((p) => path.relative(root, p)).join(', ')}`);
}
