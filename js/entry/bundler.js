// The bundler entry: the main module's exports, with the markdown functions
// joined to the markdown module (both .wasm files are imported; the bundler
// loads them).
import * as main from './ctxpack.js';
import { parseMarkdownImages as parse } from './markdown/ctxpack_markdown.js';

export * from './ctxpack.js';

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
