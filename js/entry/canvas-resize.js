// Resizing in browsers and workers: the browser's own decoders and
// `createImageBitmap`'s high-quality resampling, then `OffscreenCanvas`'s
// encoder. No codec bytes in the package's modules.

/** True where this path works: a browser window or worker with OffscreenCanvas. */
export const canvasAvailable =
  typeof OffscreenCanvas === 'function' && typeof createImageBitmap === 'function';

/**
 * Encodes `image` ({data, mime}) at `target` ({width, height, mime,
 * quality}), both sizes as the image is shown: the browser applies a JPEG's
 * or PNG's EXIF orientation while decoding, before resizing, so the pixels
 * come out upright (and the encoder writes no orientation). An animated GIF
 * or WebP gives its first frame. What the browser cannot decode (TIFF, and
 * HEIC outside Safari) throws an `Error` whose `code` is
 * `IMAGE_DECODE_FAILED`.
 */
export async function canvasResize(image, target) {
  const blob = new Blob([image.data], { type: image.mime });
  let bitmap;
  try {
    bitmap = await createImageBitmap(blob, {
      imageOrientation: 'from-image',
      resizeWidth: target.width,
      resizeHeight: target.height,
      resizeQuality: 'high',
    });
  } catch (e) {
    const error = new Error(`this browser cannot decode ${image.mime}: ${e?.message ?? e}`, { cause: e });
    error.code = 'IMAGE_DECODE_FAILED';
    throw error;
  }
  try {
    const canvas = new OffscreenCanvas(target.width, target.height);
    const ctx = canvas.getContext('2d');
    if (target.mime === 'image/jpeg') {
      // JPEG has no transparency: flatten on white, as the codec does.
      ctx.fillStyle = '#fff';
      ctx.fillRect(0, 0, target.width, target.height);
    }
    ctx.drawImage(bitmap, 0, 0);
    const out = await canvas.convertToBlob({ type: target.mime, quality: target.quality / 100 });
    return { data: new Uint8Array(await out.arrayBuffer()), mime: out.type };
  } finally {
    bitmap.close();
  }
}
