// Deterministic benchmark workloads made from real encoded images.
import { makeImage } from '../tests/fixtures/make.mjs';

/** A real JPEG/PNG whose base64 is close to `targetB64` characters. */
export async function imageOfSize(targetB64, seed, format = seed % 2 ? 'jpeg' : 'png') {
  // Noise-heavy pixels compress poorly, so size grows with the pixel count.
  let side = Math.round(Math.sqrt(targetB64 / (format === 'png' ? 1.4 : 0.9)));
  for (let i = 0; i < 6; i++) {
    const buf = await makeImage(format, side, side, seed);
    const len = Math.ceil(buf.length / 3) * 4;
    if (Math.abs(len - targetB64) / targetB64 < 0.05) return { mime: `image/${format}`, b64: buf.toString('base64') };
    side = Math.max(8, Math.round(side * Math.sqrt(targetB64 / len)));
  }
  const buf = await makeImage(format, side, side, seed);
  return { mime: `image/${format}`, b64: buf.toString('base64') };
}

/**
 * `count` messages in the OpenAI format with `images` distinct images of
 * about `imageB64` base64 characters spread over the user messages before
 * the last one, which is text only.
 */
export async function conversation({ count, images, imageB64, seed = 1 }) {
  const pool = [];
  for (let i = 0; i < images; i++) pool.push(await imageOfSize(imageB64, seed * 1000 + i));
  const messages = [];
  const every = Math.max(1, Math.floor((count - 1) / images));
  let next = 0;
  for (let i = 0; i < count - 1; i++) {
    const user = i % 2 === 0;
    if (user && next < images && i % every <= 1) {
      const img = pool[next++];
      messages.push({
        role: 'user',
        content: [
          { type: 'text', text: `Screenshot ${next}: what changed here?` },
          { type: 'image_url', image_url: { url: `data:${img.mime};base64,${img.b64}` } },
        ],
      });
    } else {
      messages.push({ role: user ? 'user' : 'assistant', content: `${user ? 'Question' : 'Answer'} ${i}: ${'lorem ipsum '.repeat(8)}` });
    }
  }
  while (next < images) {
    const img = pool[next++];
    messages.splice(messages.length - 1, 0, { role: 'user', content: [{ type: 'image_url', image_url: { url: `data:${img.mime};base64,${img.b64}` } }] });
  }
  messages.push({ role: 'user', content: 'And now, compare the first and the last screenshot.' });
  return messages;
}
