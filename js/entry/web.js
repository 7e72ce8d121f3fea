// The browser and worker entry: the main module's exports, with the markdown
// functions joined to the markdown module (which also holds routeArtifact and
// the refusal readers). `init()` instantiates both modules in parallel, so
// every synchronous function works once it resolves.
import initMain, * as main from './ctxpack.js';
import initMarkdown, {
  parseMarkdownImages as parse,
  routeArtifact as routeInMarkdownModule,
  parseProviderError,
  parseContextLengthError,
} from './markdown/ctxpack_markdown.js';

import { canvasAvailable, canvasResize } from './canvas-resize.js';

export * from './ctxpack.js';
export { canvasResize, parseProviderError, parseContextLengthError };

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

/**
 * Resizes with the codec module (decoders, resizer and encoders compiled
 * from Rust), which is fetched and instantiated on first use: `input` is
 * what wasm-bindgen's init takes, by default the `.wasm` next to its script.
 */
export function initCodecModule(input) {
  if (input !== undefined) codecInput = input;
  if (codec) return codec;
  // After a trap, a fresh copy of the glue: it holds its instance.
  const url = codecInstances++ === 0 ? './codec/ctxpack_codec.js' : `./codec/ctxpack_codec.js?instance=${codecInstances}`;
  codec = import(url).then(async (m) => {
    await m.default(codecInput);
    return m;
  });
  return codec;
}
let codecInput;
let codecInstances = 0;

/**
 * Encodes `image` at `target` with the codec module (loaded on first use).
 * A trap (WebAssembly.RuntimeError) leaves the instance's memory as it was
 * mid-call, so the next call gets a fresh instance.
 */
export async function codecResize(image, target) {
  const m = await initCodecModule();
  try {
    return m.transcodeImage(image.data, target.width, target.height, target.mime, target.quality);
  } catch (e) {
    if (e instanceof WebAssembly.RuntimeError) codec = null;
    throw e;
  }
}

// Browsers and workers resize on a canvas; without one, the codec module.
const defaultResize = canvasAvailable ? canvasResize : codecResize;

/** Fits a request to its model (see the declaration). */
export function fitContext(messages, options) {
  return main.__fitContext(messages, options, defaultResize);
}

/** Fits a refused request to what the refusal names (see the declaration): the markdown module reads the refusal. */
export async function repairContext(messages, error, options) {
  await initMarkdownModule();
  return main.__repairContext(messages, error, parseProviderError(error), options, defaultResize);
}
