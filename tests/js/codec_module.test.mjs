// The codec is a wasm module of its own: the main crate carries no image
// decoder, resizer or encoder, each flavour ships the codec beside the main
// module, and its size is reported (it has no budget: it is fetched only when
// an image must change without a canvas).
import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT } from '../../scripts/serve.mjs';
import { cargoTree } from './support/cargo_tree.mjs';


test('the main wasm crate has no image codec; the codec crate has the decoders, the resizer and the encoders', () => {
  const crates = ['image', 'fast_image_resize', 'png', 'jpeg-decoder', 'jpeg-encoder', 'gif', 'image-webp', 'tiff', 'moxcms'];
  const main = cargoTree('ctxpack');
  for (const crate of crates) {
    assert.doesNotMatch(main, new RegExp(`^${crate} v`, 'm'), crate);
  }
  const codec = cargoTree('ctxpack-codec');
  for (const crate of crates) {
    assert.match(codec, new RegExp(`^${crate} v`, 'm'), crate);
  }
});

test('the codec module ships once for every flavour, beside the main one, and sizes.json reports it', () => {
  assert.ok(existsSync(path.join(ROOT, 'dist/wasm/codec/ctxpack_codec_bg.wasm')));
  for (const flavour of ['web', 'bundler', 'node']) {
    assert.ok(existsSync(path.join(ROOT, 'dist', flavour, 'codec', 'ctxpack_codec.js')), flavour);
    assert.ok(!existsSync(path.join(ROOT, 'dist', flavour, 'codec', 'ctxpack_codec_bg.wasm')), `${flavour} has no copy of its own`);
  }
  const sizes = JSON.parse(readFileSync(path.join(ROOT, 'dist/sizes.json'), 'utf8'));
  const codec = readFileSync(path.join(ROOT, 'dist/wasm/codec/ctxpack_codec_bg.wasm'));
  assert.equal(sizes.codec.gzip, gzipSync(codec, { level: 9 }).length);
  console.log(`# codec module: ${(sizes.codec.raw / 1000).toFixed(1)} KB raw, ${(sizes.codec.gzip / 1000).toFixed(1)} KB gzipped`);
});
