// A payload's head (the leading bytes a dimension read needs, 64 KB) is
// decoded by Node's Buffer where the text is, and only the bytes cross into
// wasm; a head Node's decoder would read otherwise than the core's strict one
// (URL-safe letters, white space, `=`, other letters) is decoded by the core,
// so what is measured is the same with and without Node's decoder.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { makeNoisePng } from '../fixtures/make.mjs';
import { orientedImage } from '../fixtures/photos.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// The Node build finds Buffer.prototype.write on first use: count the
// base64 decodes of a 64 KB head (87,384 characters).
const HEAD_CHARS = Math.ceil((64 * 1024) / 3) * 4;
const realWrite = Buffer.prototype.write;
let headDecodes = 0;
Buffer.prototype.write = function (string, ...rest) {
  if (typeof string === 'string' && string.length === HEAD_CHARS && rest.includes('base64')) headDecodes++;
  return realWrite.call(this, string, ...rest);
};
const { estimate } = await import('ctxpack');

const message = (b64, mime) => ({ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:${mime};base64,${b64}` } }] });
const measured = (messages) => estimate(messages, { provider: 'openai' }).images.map(({ width, height, measured: m, bytes }) => ({ width, height, measured: m, bytes }));

/**
 * What `estimate` measures of `messages` in a Node without
 * `process.getBuiltinModule`: the core decodes every head. The child counts
 * Buffer's base64 decodes of a head as this process does, and none may
 * happen there: the core's decoder is the one measured.
 */
function measuredWithoutNode(messages) {
  const script = `
    delete process.getBuiltinModule;
    const realWrite = Buffer.prototype.write;
    let headDecodes = 0;
    Buffer.prototype.write = function (string, ...rest) {
      if (typeof string === 'string' && string.length === ${HEAD_CHARS} && rest.includes('base64')) headDecodes++;
      return realWrite.call(this, string, ...rest);
    };
    const { estimate } = await import('ctxpack');
    let input = '';
    for await (const chunk of process.stdin) input += chunk;
    const images = estimate(JSON.parse(input), { provider: 'openai' }).images;
    process.stdout.write(JSON.stringify({ headDecodes, images: images.map(({ width, height, measured, bytes }) => ({ width, height, measured, bytes })) }));
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, input: JSON.stringify(messages), maxBuffer: 64 << 20 });
  const { headDecodes: decodes, images } = JSON.parse(out.toString());
  assert.equal(decodes, 0, 'no head decoded by Buffer without Node');
  return images;
}

test('a long payload\'s head is decoded where it is, and an upright phone photo is measured as shown', async () => {
  const png = (await makeNoisePng(240, 240, 7)).toString('base64');
  assert.ok(png.length > HEAD_CHARS);
  // A portrait photo as phones write it (stored 1600×1200, EXIF orientation
  // 6), with 100 KB after its end as some cameras leave.
  const jpeg = Buffer.concat([await orientedImage(6, 1200, 1600), Buffer.alloc(100 * 1024)]).toString('base64');
  const messages = [message(png, 'image/png'), message(jpeg, 'image/jpeg')];
  const before = headDecodes;
  const got = measured(messages);
  assert.equal(headDecodes - before, 2);
  assert.deepEqual(got.map(({ width, height, measured: m }) => [width, height, m]), [[240, 240, true], [1200, 1600, true]]);
  assert.deepEqual(got, measuredWithoutNode(messages));
});

test('a head Node would decode otherwise than the core is decoded by the core: the same measures with Node\'s decoder and without', async () => {
  const png = (await makeNoisePng(240, 240, 8)).toString('base64');
  const at = (i, c) => png.slice(0, i) + c + png.slice(i + 1);
  const cases = [];
  for (const c of ['-', '_', '=', ' ', '\n', 'é', '*', '\u0000']) {
    cases.push({ what: `${JSON.stringify(c)} in the head`, b64: at(50_000, c), inHead: true });
    cases.push({ what: `${JSON.stringify(c)} past the head`, b64: at(HEAD_CHARS + 1000, c), inHead: false });
  }
  cases.push({ what: 'the last letter of the head', b64: at(HEAD_CHARS - 1, '-'), inHead: true });
  cases.push({ what: 'the first letter past the head', b64: at(HEAD_CHARS, '-'), inHead: false });
  // Exactly a head long, and shorter: the core reads it whole.
  cases.push({ what: 'a payload a head long', b64: png.slice(0, HEAD_CHARS), inHead: false });
  const messages = cases.map(({ b64 }) => message(b64, 'image/png'));
  const withNode = measured(messages);
  assert.deepEqual(withNode, measuredWithoutNode(messages));
  // The core's decoder takes a head only when all of it is base64.
  for (const [i, { what, inHead }] of cases.entries()) {
    assert.equal(withNode[i].measured, !inHead, what);
  }
});
