// The bundler entry: the main module's exports, with the markdown functions
// joined to the markdown module, which also holds routeArtifact and the
// refusal readers (both .wasm files are imported; the bundler loads them).
// The codec module is a dynamic import: bundlers split it into a chunk
// fetched the first time an image must change without a canvas.
import * as main from './ctxpack.js';
import {
  parseMarkdownImages as parse,
  routeArtifact as routeInMarkdownModule,
  parseProviderError,
  parseContextLengthError,
} from './markdown/ctxpack_markdown.js';

import { canvasAvailable, canvasResize } from './canvas-resize.js';

export * from './ctxpack.js';
export { canvasResize, parseProviderError, parseContextLengthError };

/** Finds the images in markdown `text`. */
export function parseMarkdownImages(text) {
  return main.__parseMarkdownImages(text, parse);
}

/** Turns user text with markdown images into ordered content parts. */
export function toMultimodal(text, options) {
  return main.__toMultimodal(text, options, parse);
}

/** True when any message holds an image or file part, a placeholder, or a markdown image. */
export function hasMultimedia(messages, options) {
  return main.__hasMultimedia(messages, options, parse);
}

/** The markdown module's result, or its error thrown as a `CtxpackError`. */
function unwrap(result) {
  if (result?.error) throw main.__ctxpackError(result.error.code, result.error.message, result.error.path);
  return result?.ok;
}

/** Which part an artifact becomes for a model's capabilities (see the declaration). */
export function routeArtifact(artifact, capabilities, options) {
  return unwrap(routeInMarkdownModule(artifact, capabilities, options));
}

let codec = null;

/** Encodes `image` at `target` with the codec module (loaded on first use). */
export async function codecResize(image, target) {
  codec ??= import('./codec/ctxpack_codec.js');
  const m = await codec;
  return m.transcodeImage(image.data, target.width, target.height, target.mime, target.quality);
}

const defaultResize = canvasAvailable ? canvasResize : codecResize;

/** Fits a request to its model (see the declaration). */
export function fitContext(messages, options) {
  return main.__fitContext(messages, options, defaultResize);
}

/** Fits a refused request to what the refusal names (see the declaration): the markdown module reads the refusal. */
export function repairContext(messages, error, options) {
  return main.__repairContext(messages, error, parseProviderError(error), options, defaultResize);
}
