// The browser and worker entry: the main module's exports, with the markdown
// functions joined to the markdown module (which also holds routeArtifact and
// the refusal readers; see api.js). `init()` instantiates both modules in
// parallel, so every synchronous function works once it resolves.
import initMain, * as main from './ctxpack.js';
import initMarkdown, * as markdown from './markdown/ctxpack_markdown.js';
import { bindApi } from './api.js';
import { canvasAvailable, canvasResize } from './canvas-resize.js';

export * from './ctxpack.js';
export { canvasResize };

let markdownInit = null;

/**
 * Instantiates the markdown module (once): `input` is what wasm-bindgen's
 * init takes (`{module_or_path}`); by default the `.wasm` next to its script.
 */
export function initMarkdownModule(input) {
  markdownInit ??= initMarkdown(input);
  return markdownInit;
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

let codecInput;
let codecInstances = 0;

const { codecModule, ...api } = bindApi({
  main,
  markdown: () => markdown,
  markdownReady: () => initMarkdownModule(),
  // Each instance is a fresh copy of the glue, which holds its instance.
  loadCodec: async () => {
    const url = codecInstances++ === 0 ? './codec/ctxpack_codec.js' : `./codec/ctxpack_codec.js?instance=${codecInstances}`;
    const m = await import(url);
    await m.default(codecInput);
    return m;
  },
  // Browsers and workers resize on a canvas; without one, the codec module.
  defaultResize: canvasAvailable ? canvasResize : undefined,
});

/**
 * Resizes with the codec module (decoders, resizer and encoders compiled
 * from Rust), which is fetched and instantiated on first use: `input` is
 * what wasm-bindgen's init takes, by default the `.wasm` next to its script.
 */
export function initCodecModule(input) {
  if (input !== undefined) codecInput = input;
  return codecModule();
}

export const {
  parseMarkdownImages, toMultimodal, hasMultimedia, routeArtifact, historyImageTool, historyImageTexts, parseProviderError, parseContextLengthError,
  codecResize, fitContext, repairContext, compactContext, compactRequestBody, estimate, expandContext,
} = api;
