// The browser and worker entry: the main module's exports, with the markdown
// functions joined to the markdown module. `init()` instantiates both modules
// in parallel, so every synchronous function works once it resolves.
import initMain, * as main from './ctxpack.js';
import initMarkdown, { parseMarkdownImages as parse } from './markdown/ctxpack_markdown.js';

export * from './ctxpack.js';

let markdown = null;

/**
 * Instantiates the markdown module (once): `input` is what wasm-bindgen's
 * init takes (`{module_or_path}`); by default the `.wasm` next to its script.
 */
export function initMarkdownModule(input) {
  markdown ??= initMarkdown(input);
  return markdown;
}

/**
 * Instantiates both modules. `options` is what wasm-bindgen's init takes for
 * the main module (`{module_or_path}`, a URL, a `Response`…), plus
 * `markdown` for the markdown module's.
 */
export default async function init(options) {
  const markdownInput = options && typeof options === 'object' && 'markdown' in options ? options.markdown : undefined;
  const mainInput = markdownInput === undefined ? options : { ...options, markdown: undefined };
  const [exports] = await Promise.all([initMain(mainInput), initMarkdownModule(markdownInput)]);
  return exports;
}

/** Finds the images in markdown `text`. */
export function parseMarkdownImages(text) {
  return main.__parseMarkdownImages(text, parse);
}

/** Turns user text with markdown images into ordered content parts. */
export async function toMultimodal(text, options) {
  await initMarkdownModule();
  return main.__toMultimodal(text, options, parse);
}

/** True when any message holds an image or file part, a placeholder, or a markdown image. */
export function hasMultimedia(messages, options) {
  return main.__hasMultimedia(messages, options, parse);
}
