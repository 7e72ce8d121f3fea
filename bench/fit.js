// Runs in the fitting benchmark page: fitContext (web build, canvas path)
// against a plain canvas resize of the same image to the same size — the
// floor: the least work any browser code can do for it.
import init, { fitContext } from '/dist/web/index.js';

await init();

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fromBase64 = (b64) => Uint8Array.fromBase64?.(b64) ?? Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
const toBase64 = (bytes) => bytes.toBase64?.() ?? btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join(''));

/** The floor: base64 → bitmap at the target size → canvas → JPEG → base64. */
async function canvasResize(b64, width, height) {
  const bitmap = await createImageBitmap(new Blob([fromBase64(b64)], { type: 'image/jpeg' }), { resizeWidth: width, resizeHeight: height, resizeQuality: 'high' });
  const canvas = new OffscreenCanvas(width, height);
  canvas.getContext('2d').drawImage(bitmap, 0, 0);
  bitmap.close();
  const blob = await canvas.convertToBlob({ type: 'image/jpeg', quality: 0.85 });
  return toBase64(new Uint8Array(await blob.arrayBuffer()));
}

/** `jpegs`: the same photo for each run, each with new text (ctxpack remembers what it resized). */
window.runFit = async ({ jpegs, model, runs }) => {
  const messages = (jpeg) => [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: jpeg } }, { type: 'text', text: 'what is this?' }] }];
  const ours = [];
  let report;
  for (let i = 0; i <= runs; i++) {
    const t0 = performance.now();
    ({ report } = await fitContext(messages(jpegs[i]), { model }));
    if (i > 0) ours.push(performance.now() - t0);
  }
  const { width, height } = report.images[0].after;
  const floor = [];
  for (let i = 0; i <= runs; i++) {
    const t0 = performance.now();
    await canvasResize(jpegs[i], width, height);
    if (i > 0) floor.push(performance.now() - t0);
  }
  return { ctxpack: median(ours), canvas: median(floor), before: report.images[0].before, after: report.images[0].after };
};
window.fitReady = true;
